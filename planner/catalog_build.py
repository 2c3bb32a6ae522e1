"""Build the offer catalog from a SkyPilot-catalog price snapshot, cleaning its known faults.

Input: a snapshot directory holding ``aws_gpu.csv``, ``azure_gpu.csv``, ``gcp_gpu.csv``,
``gcp_gpu_hostvms.csv`` (row-for-row copies of skypilot-org/skypilot-catalog files) and
``snapshot.json`` (upstream paths, commits and the date the snapshot was taken); and, apart from
it, gpufleet's own rows (``catalog-overrides/``: files of the same names and columns plus a
``Provenance`` that says where each row's facts come from), cleaned alike, each winning over a
snapshot row of the same offer. Output: a list of ``Offer`` (an added row's ``source`` is its
provenance, never the snapshot's) and a log of every ``CleaningAction`` — which row a rule
touched and why, by the row's identity (file, instance type, region, zone), so adding rows
changes no other line of the log. ``scripts/build_catalog.py`` runs this and writes
``planner/data/catalog.csv`` and ``planner/data/catalog_cleaning.csv``; rerun it when a newer
snapshot or an override arrives.

Cleaning rules, in the order they run (rule ids appear in the log):

``retired_size``
    Azure ``*_Promo`` sizes (promotions that ended) and the Azure NC (K80) and NV (M60) v1 sizes,
    retired on 2023-08-31 (learn.microsoft.com/azure/virtual-machines/sizes-previous-gen and the
    NC/NV retirement notices). Row dropped.
``not_a_gpu`` / ``unknown_accelerator``
    FPGA boards (AWS f1/f2 Xilinx Virtex) are not GPUs; names outside ``planner.gpus`` are dropped
    rather than guessed.
``gpu_count_corrected``
    Known wrong counts, with sources: Standard_ND96isr_H100_v5 has 8 H100, not 12
    (learn.microsoft.com/azure/virtual-machines/nd-h100-v5-series). Also where AWS's own ``GpuInfo``
    count disagrees with the listed count, ``GpuInfo`` wins.
``fractional_gpu``
    GPU-partition sizes (a slice of one GPU, e.g. Standard_NV4as_v4 = 1/8 of an MI25) and any
    non-integer count. gpufleet plans whole GPUs. Row dropped.
``missing_on_demand_price``
    Empty, zero, negative, non-numeric or placeholder (>= 10,000 $/h) on-demand price. Every offer
    needs one: it is the baseline savings are measured against. Row dropped.
``no_spot_price``
    Empty, zero or placeholder spot price: the offer stays, on-demand only.
``spot_not_below_on_demand``
    Spot at or above on-demand (within 0.5%): either inverted or an echo of the on-demand price
    where the cloud has no spot market for that size (e.g. Azure ND96isr_H100_v5 repeating 98.32).
    Spot price removed.
``duplicate``
    Two rows for the same offer (same instance type and zone; for GCP GPU rows, same SKU, count and
    zone). The most complete row (with a spot price) wins, then the first.
``regional_outlier``
    One priced item — an AWS/Azure instance type, a GCP GPU per unit, a GCP VM type — costs about
    the same everywhere in one cloud: list prices differ between regions by regional multipliers
    well inside 2x. A row whose on-demand price is below half or above twice the median of that
    item's per-region prices is a data fault (the snapshot's GCP H100 at 4.20 $/h next to 9.80-12.74
    elsewhere). The median is taken over the rows whose two prices agree (spot at most half of
    on-demand) when two or more regions have such rows — in the snapshot's faulty GCP tier spot
    sits at 54-85% of the too-low "on-demand" price, and that tier holds most regions for some
    GPUs — else over all rows when three or more regions are listed, else nothing is judged. A
    row whose prices agree is never dropped on the word of fewer than three regions. Row dropped.
``spot_outlier``
    Same idea for spot: a spot price over 3x the item's median spot (spot markets vary more than
    list prices, hence the wider band). Spot price removed.
``no_host_price`` / ``no_gpu_price``
    GCP bills the VM and its GPUs separately; an offer exists only where both are priced in the same
    zone (B200 rows have no a4 host VM in the snapshot).

GCP offers are composed here: accelerator-optimized machines (A2, A3, G2) = their VM row + the row
of their built-in GPUs (SKU and count from the machine type) in the same zone; attachable T4, V100,
P100 and P4 GPUs run on an N1 host, priced from the published N1 list rates below because the
snapshot has no N1 rows.

Known limitation: the regional-outlier rule trusts agreeing rows, then the majority of regions.
Where a faulty tier both dominates and looks consistent, it cannot tell which tier is right; the
cleaning log lists every row dropped so a reviewer can check, and a live price refresh replaces
the snapshot prices entirely.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from gpufleet.clouds import Cloud
from gpufleet.planner.catalog import Offer
from gpufleet.planner.gcp_machines import N1_GPUS, built_in_gpus
from gpufleet.planner.gpus import GPUS, normalize_gpu_name

SOURCE_FILES = ("aws_gpu.csv", "azure_gpu.csv", "gcp_gpu.csv", "gcp_gpu_hostvms.csv")
MANIFEST = "snapshot.json"
# gpufleet's own rows: a folder beside the snapshot's, the column that says where each is from.
OVERRIDES = "catalog-overrides"
PROVENANCE = "Provenance"
# And the day an override's prices were read (an ISO date): its offers' ``as_of``.
OVERRIDE_AS_OF = "AsOf"

PLACEHOLDER_PRICE = 10_000.0
SPOT_ECHO_TOLERANCE = 0.005
OUTLIER_FACTOR = 2.0
SPOT_OUTLIER_FACTOR = 3.0
MIN_REGIONS_FOR_OUTLIERS = 3
# Rows whose two prices agree are better evidence, so fewer of them suffice to set the reference.
MIN_CONSISTENT_REGIONS = 2

FPGA_NAMES = frozenset({"Virtex UltraScale (VU9P)", "Virtex UltraScale+ (VU47P)"})

# Retired on 2023-08-31 (Azure NC-series K80 and NV-series M60, first generation).
RETIRED_AZURE_SIZES = frozenset(
    {
        "Standard_NC6",
        "Standard_NC12",
        "Standard_NC24",
        "Standard_NC24r",
        "Standard_NV6",
        "Standard_NV12",
        "Standard_NV24",
    }
)

# (cloud, instance type) -> correct GPU count, with the source in the module docstring.
GPU_COUNT_CORRECTIONS: dict[tuple[str, str], int] = {("azure", "Standard_ND96isr_H100_v5"): 8}

# Sizes that expose a slice of one GPU (learn.microsoft.com/azure/virtual-machines/nvv4-series:
# NV4as_v4 = 1/8, NV8as_v4 = 1/4, NV16as_v4 = 1/2 of one MI25; NV32as_v4 is a whole GPU).
GPU_PARTITIONS: dict[tuple[str, str], str] = {
    ("azure", "Standard_NV4as_v4"): "1/8",
    ("azure", "Standard_NV8as_v4"): "1/4",
    ("azure", "Standard_NV16as_v4"): "1/2",
}

# Per-size memory where a size carries a variant of the named GPU: the NC H100 v5 sizes have the
# H100 NVL with 94 GB (learn.microsoft.com/azure/virtual-machines/ncads-h100-v5).
GPU_MEMORY_OVERRIDES: dict[tuple[str, str], float] = {
    ("azure", "Standard_NC40ads_H100_v5"): 94,
    ("azure", "Standard_NC80adis_H100_v5"): 94,
}

# GCP N1 list rates, us-central1 (cloud.google.com/compute/vm-instance-pricing, N1 predefined
# vCPU and memory; spot/preemptible rates from the same page). Applied in every region: the host
# is a small share of an N1 + GPU price, and the snapshot has no N1 rows to do better.
N1_VCPU_HOURLY = 0.031611
N1_MEMORY_GIB_HOURLY = 0.004237
N1_SPOT_VCPU_HOURLY = 0.006655
N1_SPOT_MEMORY_GIB_HOURLY = 0.000892
N1_VCPUS_PER_GPU = 8  # n1-standard-8 per GPU: enough data-loader cores, within every GPU's vCPU cap
N1_MEMORY_GIB_PER_VCPU = 3.75


@dataclass(frozen=True)
class CleaningAction:
    source: str
    cloud: str
    instance_type: str
    region: str
    zone: str
    rule: str
    action: str
    detail: str


CLEANING_COLUMNS = (
    "source",
    "cloud",
    "instance_type",
    "region",
    "zone",
    "rule",
    "action",
    "detail",
)


@dataclass
class _Row:
    """One source line while it is being cleaned."""

    file: str
    line: int
    cloud: Cloud
    instance_type: str
    sku: str  # the accelerator name as the source spells it (GCP prices by SKU)
    gpu_name: str  # canonical name; empty for GCP VM rows
    gpu_count: float
    vcpus: float
    memory_gib: float
    region: str
    zone: str
    on_demand: float | None
    spot: float | None
    gpu_info_count: int | None = None
    raw_on_demand: str = ""
    raw_spot: str = ""
    provenance: str = ""  # an override's (catalog-overrides/): where its facts come from
    read_on: str = ""  # an override's: the day its prices were read

    def as_of(self, manifest: SnapshotManifest) -> str:
        """The day its prices are from: an override's own, else the snapshot's."""
        return self.read_on or manifest.as_of

    @property
    def source(self) -> str:
        """Its file, as the cleaning log names it (the row is the log line's other columns)."""
        return f"{OVERRIDES}/{self.file}" if self.provenance else self.file

    def label(self, manifest: SnapshotManifest) -> str:
        """Where an offer built from it comes from."""
        if self.provenance:
            return f"gpufleet {OVERRIDES}/{self.file}: {self.provenance}"
        return manifest.source_label(self.file)


@dataclass
class _Log:
    actions: list[CleaningAction] = field(default_factory=list)
    # gpufleet's own rows the rules dropped, each with what would make it an offer.
    lost_overrides: list[str] = field(default_factory=list)

    def add(self, row: _Row, rule: str, action: str, detail: str, *, needs: str = "") -> None:
        """Log what ``rule`` did to ``row``; ``needs``: what a row gpufleet added itself would
        need to survive the rule."""
        # A GCP GPU price row names no machine: its accelerator and count say which it is.
        what = row.instance_type or f"{row.sku} x{format_count(row.gpu_count)}"
        self.actions.append(
            CleaningAction(row.source, row.cloud, what, row.region, row.zone, rule, action, detail)
        )
        if row.provenance and action == "dropped":
            self.lost_overrides.append(
                f"{row.source}:{row.line}: {what} in {row.zone or row.region or 'no region'}: "
                f"dropped by the {rule} rule ({detail}){f': {needs}' if needs else ''}"
            )


@dataclass
class BuildResult:
    offers: list[Offer]
    actions: list[CleaningAction]


@dataclass(frozen=True)
class SnapshotManifest:
    as_of: str
    files: dict[str, dict[str, str]]

    def source_label(self, file: str) -> str:
        info = self.files.get(file, {})
        commit = info.get("commit", "unknown")[:7]
        return f"skypilot-catalog@{commit}:{info.get('path', file)}"


def read_manifest(snapshot_dir: Path) -> SnapshotManifest:
    data = json.loads((snapshot_dir / MANIFEST).read_text(encoding="utf-8"))
    return SnapshotManifest(as_of=data["as_of"], files=data["files"])


# --- parsing -----------------------------------------------------------------------------------


def parse_price(text: str) -> tuple[float | None, str | None]:
    """A usable $/hour price, or None with the reason it is not one."""
    stripped = text.strip()
    if not stripped:
        return None, "empty"
    try:
        value = float(stripped)
    except ValueError:
        return None, f"not a number ({stripped!r})"
    if math.isnan(value) or math.isinf(value):
        return None, f"not a number ({stripped!r})"
    if value <= 0:
        return None, f"{'zero' if value == 0 else 'negative'} ({stripped})"
    if value >= PLACEHOLDER_PRICE:
        return None, f"placeholder ({stripped})"
    return value, None


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def _gpu_info_count(text: str) -> int | None:
    if not text.startswith("{"):
        return None
    try:
        info = ast.literal_eval(text)
        return int(info["Gpus"][0]["Count"])
    except (ValueError, SyntaxError, KeyError, IndexError, TypeError):
        return None


def _read_rows(path: Path, cloud: Cloud, *, override: bool = False) -> list[_Row]:
    """The rows of one source file; ``override``: one of ``catalog-overrides/``, whose every
    row says where it comes from (ValueError naming the line otherwise)."""
    rows: list[_Row] = []
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        for line_no, rec in enumerate(reader, start=2):
            provenance = (rec.get(PROVENANCE) or "").strip() if override else ""
            if override and not provenance:
                raise ValueError(
                    f"{OVERRIDES}/{path.name}:{line_no}: {PROVENANCE}: required (where the "
                    "row's facts come from: a public page or document)"
                )
            read_on = _read_on(rec, path, line_no) if override else ""
            sku = (rec.get("AcceleratorName") or "").strip()
            count_text = (rec.get("AcceleratorCount") or "").strip()
            rows.append(
                _Row(
                    file=path.name,
                    line=line_no,
                    cloud=cloud,
                    instance_type=(rec.get("InstanceType") or "").strip(),
                    sku=sku,
                    gpu_name="",
                    gpu_count=_float(count_text) if count_text else math.nan,
                    vcpus=_float(rec.get("vCPUs") or ""),
                    memory_gib=_float(rec.get("MemoryGiB") or ""),
                    region=(rec.get("Region") or "").strip(),
                    zone=(rec.get("AvailabilityZone") or "").strip(),
                    on_demand=None,
                    spot=None,
                    gpu_info_count=_gpu_info_count(rec.get("GpuInfo") or ""),
                    raw_on_demand=rec.get("Price") or "",
                    raw_spot=rec.get("SpotPrice") or "",
                    provenance=provenance,
                    read_on=read_on,
                )
            )
    return rows


def _read_on(rec: dict[str, str | None], path: Path, line_no: int) -> str:
    """An override row's ``AsOf``: the ISO date its prices were read (ValueError naming the
    line otherwise)."""
    text = (rec.get(OVERRIDE_AS_OF) or "").strip()
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise ValueError(
            f"{OVERRIDES}/{path.name}:{line_no}: {OVERRIDE_AS_OF}: required, the day the row's "
            f"prices were read as YYYY-MM-DD (got {text!r})"
        ) from None


# --- rules ---------------------------------------------------------------------------------------


def _identity_rules(rows: Iterable[_Row], log: _Log) -> list[_Row]:
    """Which machine and GPU a row is: retired sizes, non-GPUs, counts, partitions."""
    kept: list[_Row] = []
    for row in rows:
        if row.cloud == "azure" and (
            row.instance_type.endswith("_Promo") or row.instance_type in RETIRED_AZURE_SIZES
        ):
            why = "promotional size" if row.instance_type.endswith("_Promo") else "retired size"
            log.add(row, "retired_size", "dropped", f"{why}, no longer offered")
            continue
        if row.file == "gcp_gpu_hostvms.csv":
            kept.append(row)  # VM rows carry no accelerator; composed with their GPU row later
            continue
        if row.sku in FPGA_NAMES:
            log.add(row, "not_a_gpu", "dropped", f"{row.sku} is an FPGA")
            continue
        canonical = normalize_gpu_name(row.sku)
        if canonical is None:
            log.add(
                row,
                "unknown_accelerator",
                "dropped",
                f"{row.sku!r} is not in the GPU list",
                needs="add the GPU to planner/gpus.py (or its spelling to _ALIASES)",
            )
            continue
        row.gpu_name = canonical
        key = (row.cloud, row.instance_type)
        if key in GPU_PARTITIONS:
            log.add(row, "fractional_gpu", "dropped", f"{GPU_PARTITIONS[key]} of one {canonical}")
            continue
        if key in GPU_COUNT_CORRECTIONS and row.gpu_count != GPU_COUNT_CORRECTIONS[key]:
            fixed = GPU_COUNT_CORRECTIONS[key]
            log.add(
                row,
                "gpu_count_corrected",
                "corrected",
                f"{format_count(row.gpu_count)} -> {fixed} {canonical}",
            )
            row.gpu_count = fixed
        elif row.gpu_info_count is not None and row.gpu_count != row.gpu_info_count:
            log.add(
                row,
                "gpu_count_corrected",
                "corrected",
                f"{format_count(row.gpu_count)} -> {row.gpu_info_count} {canonical} (GpuInfo)",
            )
            row.gpu_count = row.gpu_info_count
        if math.isnan(row.gpu_count) or row.gpu_count <= 0:
            log.add(row, "fractional_gpu", "dropped", f"GPU count {row.gpu_count!r} is not usable")
            continue
        if row.gpu_count != int(row.gpu_count):
            log.add(row, "fractional_gpu", "dropped", f"{format_count(row.gpu_count)} GPUs")
            continue
        kept.append(row)
    return kept


def format_count(count: float) -> str:
    return str(int(count)) if count == int(count) else str(count)


def _price_rules(rows: Iterable[_Row], log: _Log) -> list[_Row]:
    kept: list[_Row] = []
    for row in rows:
        on_demand, why = parse_price(row.raw_on_demand)
        if on_demand is None:
            log.add(
                row,
                "missing_on_demand_price",
                "dropped",
                f"on-demand price {why}",
                needs="give it an on-demand Price",
            )
            continue
        row.on_demand = on_demand
        spot, why = parse_price(row.raw_spot)
        if spot is None:
            log.add(row, "no_spot_price", "spot unavailable", f"spot price {why}")
        elif spot >= on_demand * (1 - SPOT_ECHO_TOLERANCE):
            kind = "inverted" if spot > on_demand else "echo of on-demand"
            log.add(
                row,
                "spot_not_below_on_demand",
                "spot removed",
                f"spot {row.raw_spot.strip()} vs on-demand {row.raw_on_demand.strip()} ({kind})",
            )
            spot = None
        row.spot = spot
        kept.append(row)
    return kept


def _offer_key(row: _Row) -> tuple[str, ...]:
    if row.file == "gcp_gpu.csv":
        return (row.cloud, row.sku, format_count(row.gpu_count), row.region, row.zone)
    return (row.cloud, row.instance_type, row.region, row.zone)


def _dedupe(rows: Iterable[_Row], log: _Log) -> list[_Row]:
    best: dict[tuple[str, ...], _Row] = {}
    order: list[tuple[str, ...]] = []
    losers: list[tuple[_Row, _Row]] = []
    for row in rows:
        key = _offer_key(row)
        current = best.get(key)
        if current is None:
            best[key] = row
            order.append(key)
        elif bool(row.provenance) != bool(current.provenance):
            # gpufleet's own row wins over the snapshot's, whatever either says.
            winner, loser = (row, current) if row.provenance else (current, row)
            best[key] = winner
            log.add(loser, "overridden", "dropped", f"by {winner.source}")
        elif current.spot is None and row.spot is not None:
            losers.append((current, row))
            best[key] = row
        else:
            losers.append((row, current))
    for loser, winner in losers:
        log.add(loser, "duplicate", "dropped", f"same offer as another row of {winner.source}")
    return [best[key] for key in order]


def _price_item(row: _Row) -> tuple[tuple[str, ...], float]:
    """What one price is a price of, and the per-unit scale to compare it across regions."""
    if row.file == "gcp_gpu.csv":
        return (row.cloud, "gpu", row.gpu_name), row.gpu_count
    return (row.cloud, "machine", row.instance_type), 1.0


def _consistent(row: _Row) -> bool:
    """Whether a row's two prices agree: spot is a deep discount on its on-demand price.

    In the snapshot's faulty GCP price tier the "on-demand" price is so low that the real spot price
    sits at 54-85% of it; in the rows whose prices are right, GPU spot is under half of on-demand.
    """
    return row.on_demand is not None and row.spot is not None and row.spot <= 0.5 * row.on_demand


def _regional_outliers(
    rows: list[_Row],
    *,
    price: Callable[[_Row], float | None],
    low_factor: float | None,
    high_factor: float,
    on_outlier: Callable[[_Row, float, float], bool],
) -> list[_Row]:
    """Apply ``on_outlier`` to rows whose per-unit price is outside [median/low, median*high].

    The median is over regions (one value per region, the median of its zones) so that a region
    with many zones or many listed counts does not outvote the others. It is taken over the rows
    whose prices are consistent (``_consistent``) when ``MIN_CONSISTENT_REGIONS`` regions have
    them, else over all rows when ``MIN_REGIONS_FOR_OUTLIERS`` regions do, else nothing is judged.
    A consistent row is never dropped on the word of fewer than ``MIN_REGIONS_FOR_OUTLIERS``
    regions. ``low_factor=None`` flags only prices above the band; ``on_outlier`` says whether
    the row stays.
    """

    def centres(rows_for_centre: Iterable[_Row]) -> dict[tuple[str, ...], tuple[float, int]]:
        per_region: dict[tuple[str, ...], dict[str, list[float]]] = defaultdict(
            lambda: defaultdict(list)
        )
        for row in rows_for_centre:
            value = price(row)
            if value is not None:
                item, units = _price_item(row)
                per_region[item][row.region].append(value / units)
        return {
            item: (statistics.median(statistics.median(v) for v in regions.values()), len(regions))
            for item, regions in per_region.items()
        }

    every = {k: v for k, v in centres(rows).items() if v[1] >= MIN_REGIONS_FOR_OUTLIERS}
    consistent = {
        k: v
        for k, v in centres(r for r in rows if _consistent(r)).items()
        if v[1] >= MIN_CONSISTENT_REGIONS
    }
    centre_of = every | consistent
    kept: list[_Row] = []
    for row in rows:
        value = price(row)
        item, units = _price_item(row)
        centre, regions = centre_of.get(item, (None, 0))
        if (
            value is not None
            and centre is not None
            and (regions >= MIN_REGIONS_FOR_OUTLIERS or not _consistent(row))
        ):
            unit_price = value / units
            too_low = low_factor is not None and unit_price < centre / low_factor
            if (too_low or unit_price > centre * high_factor) and not on_outlier(
                row, unit_price, centre
            ):
                continue
        kept.append(row)
    return kept


def _outlier_rules(rows: list[_Row], log: _Log) -> list[_Row]:
    def drop(row: _Row, unit_price: float, centre: float) -> bool:
        log.add(
            row,
            "regional_outlier",
            "dropped",
            f"on-demand {unit_price:.4f} $/h per unit vs median {centre:.4f} across regions",
        )
        return False

    def strip_spot(row: _Row, unit_price: float, centre: float) -> bool:
        log.add(
            row,
            "spot_outlier",
            "spot removed",
            f"spot {unit_price:.4f} $/h per unit vs median {centre:.4f} across regions",
        )
        row.spot = None
        return True

    rows = _regional_outliers(
        rows,
        price=lambda r: r.on_demand,
        low_factor=OUTLIER_FACTOR,
        high_factor=OUTLIER_FACTOR,
        on_outlier=drop,
    )
    # Cheap spot is not a fault (AWS spot reaches 90% off); only implausibly dear spot is.
    return _regional_outliers(
        rows,
        price=lambda r: r.spot,
        low_factor=None,
        high_factor=SPOT_OUTLIER_FACTOR,
        on_outlier=strip_spot,
    )


def _clean(rows: list[_Row], log: _Log) -> list[_Row]:
    rows = _identity_rules(rows, log)
    rows = _price_rules(rows, log)
    rows = _dedupe(rows, log)
    return _outlier_rules(rows, log)


# --- offers ------------------------------------------------------------------------------------


def _memory_for(cloud: Cloud, instance_type: str, gpu_name: str) -> float:
    return GPU_MEMORY_OVERRIDES.get((cloud, instance_type), GPUS[gpu_name].memory_gib)


def _machine_offers(rows: Iterable[_Row], manifest: SnapshotManifest) -> list[Offer]:
    return [
        Offer(
            cloud=row.cloud,
            region=row.region,
            zone=row.zone if row.cloud == "aws" else "",
            instance_type=row.instance_type,
            gpu_name=row.gpu_name,
            gpu_count=int(row.gpu_count),
            gpu_memory_gib=_memory_for(row.cloud, row.instance_type, row.gpu_name),
            vcpus=row.vcpus,
            memory_gib=row.memory_gib,
            on_demand_hourly=round(row.on_demand or 0.0, 6),
            spot_hourly=None if row.spot is None else round(row.spot, 6),
            source=row.label(manifest),
            as_of=row.as_of(manifest),
        )
        for row in rows
    ]


def _sum_spot(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


def _gcp_offers(
    vm_rows: list[_Row], gpu_rows: list[_Row], manifest: SnapshotManifest, log: _Log
) -> list[Offer]:
    gpu_by_key = {(r.sku, int(r.gpu_count), r.zone): r for r in gpu_rows}
    used: set[int] = set()
    offers: list[Offer] = []
    for vm in vm_rows:
        built_in = built_in_gpus(vm.instance_type)
        if built_in is None:
            log.add(
                vm,
                "unknown_accelerator",
                "dropped",
                "not a known GPU machine type",
                needs="add its series to planner/gcp_machines.py",
            )
            continue
        sku, count = built_in
        gpu = gpu_by_key.get((sku, count, vm.zone))
        if gpu is None:
            log.add(
                vm,
                "no_gpu_price",
                "dropped",
                f"no {sku} x{count} price in {vm.zone}",
                needs=f"a GPU price row of that count, in that zone, in {OVERRIDES}/gcp_gpu.csv",
            )
            continue
        used.add(id(gpu))
        name = normalize_gpu_name(sku) or sku
        offers.append(
            Offer(
                cloud="gcp",
                region=vm.region,
                zone=vm.zone,
                instance_type=vm.instance_type,
                gpu_name=name,
                gpu_count=count,
                gpu_memory_gib=_memory_for("gcp", vm.instance_type, name),
                vcpus=vm.vcpus,
                memory_gib=vm.memory_gib,
                on_demand_hourly=round((vm.on_demand or 0.0) + (gpu.on_demand or 0.0), 6),
                spot_hourly=_round_opt(_sum_spot(vm.spot, gpu.spot)),
                # gpufleet's own row where either part is one; the GPU price's file otherwise.
                source=vm.label(manifest) if vm.provenance else gpu.label(manifest),
                # The older of its two prices' days.
                as_of=min(vm.as_of(manifest), gpu.as_of(manifest)),
            )
        )
    for gpu in gpu_rows:
        if gpu.sku in N1_GPUS:
            offers.append(_n1_offer(gpu, manifest))
        elif id(gpu) not in used:
            log.add(
                gpu,
                "no_host_price",
                "dropped",
                f"no host VM price for {gpu.sku} x{format_count(gpu.gpu_count)} in {gpu.zone}",
                needs=f"its machine's row in {OVERRIDES}/gcp_gpu_hostvms.csv",
            )
    return offers


def _round_opt(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _n1_offer(gpu: _Row, manifest: SnapshotManifest) -> Offer:
    count = int(gpu.gpu_count)
    vcpus = N1_VCPUS_PER_GPU * count
    memory = vcpus * N1_MEMORY_GIB_PER_VCPU
    host = vcpus * N1_VCPU_HOURLY + memory * N1_MEMORY_GIB_HOURLY
    host_spot = vcpus * N1_SPOT_VCPU_HOURLY + memory * N1_SPOT_MEMORY_GIB_HOURLY
    return Offer(
        cloud="gcp",
        region=gpu.region,
        zone=gpu.zone,
        instance_type=f"n1-standard-{vcpus}",
        gpu_name=gpu.gpu_name,
        gpu_count=count,
        gpu_memory_gib=GPUS[gpu.gpu_name].memory_gib,
        vcpus=float(vcpus),
        memory_gib=memory,
        on_demand_hourly=round((gpu.on_demand or 0.0) + host, 6),
        spot_hourly=_round_opt(None if gpu.spot is None else gpu.spot + host_spot),
        source=gpu.label(manifest) + " + N1 list rates",
        as_of=gpu.as_of(manifest),
    )


def build_catalog(snapshot_dir: Path, overrides_dir: Path | None = None) -> BuildResult:
    """Read, clean and compose a snapshot directory (and gpufleet's own rows in
    ``overrides_dir``, each file optional) into catalog offers plus the cleaning log."""
    manifest = read_manifest(snapshot_dir)
    missing = [name for name in SOURCE_FILES if not (snapshot_dir / name).is_file()]
    if missing:
        raise FileNotFoundError(f"{snapshot_dir}: missing {', '.join(missing)}")
    log = _Log()

    def rows(name: str, cloud: Cloud) -> list[_Row]:
        found = _read_rows(snapshot_dir / name, cloud)
        if overrides_dir is not None and (overrides_dir / name).is_file():
            found += _read_rows(overrides_dir / name, cloud, override=True)
        return _clean(found, log)

    aws = rows("aws_gpu.csv", "aws")
    azure = rows("azure_gpu.csv", "azure")
    gcp_gpus = rows("gcp_gpu.csv", "gcp")
    gcp_vms = rows("gcp_gpu_hostvms.csv", "gcp")
    offers = (
        _machine_offers(aws, manifest)
        + _machine_offers(azure, manifest)
        + _gcp_offers(gcp_vms, gcp_gpus, manifest, log)
    )
    offers.sort(key=lambda o: (o.cloud, o.gpu_name, o.gpu_count, o.instance_type, o.region, o.zone))
    # A row gpufleet adds is meant to be an offer: one the rules drop stops the build.
    if log.lost_overrides:
        raise ValueError("; ".join(log.lost_overrides))
    return BuildResult(offers=offers, actions=log.actions)


def write_cleaning_log(actions: Iterable[CleaningAction]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CLEANING_COLUMNS)
    for action in actions:
        writer.writerow([getattr(action, column) for column in CLEANING_COLUMNS])
    return buffer.getvalue()

"""What an account's quotas let it run: the quotas a machine counts against, and a saved
preflight's quotas as limits the planner plans within (``gpufleet plan --respect-quotas``).

Each cloud caps GPU capacity per region, in its own unit, separately for spot:

- AWS: vCPUs of running instances per instance class (Service Quotas, ``ec2``): "Running
  On-Demand P instances", "All P5 Spot Instance Requests", "All P4, P3 and P2 Spot Instance
  Requests", "... G and VT ..." and so on; a machine counts against the quota whose name
  lists its family, by letters or with its generation (``p5.48xlarge``: P, P5).
- GCP: GPUs per accelerator type per region (``NVIDIA_A100_GPUS``; Spot and preemptible VMs
  against ``PREEMPTIBLE_NVIDIA_A100_GPUS``).
- Azure: vCPUs per VM family per region (``standardNCADSA100v4Family``; the family is the
  size's resource SKU's), and Spot against the region's ``lowPriorityCores``.

Reserved and committed capacity counts as on-demand. A quota is ``Quota``: where it applies,
to which machines (``covers``: AWS families, GCP accelerator types, Azure sizes, or
``*``), its limit and what is in use; ``QuotaBook`` holds a preflight's and says whether a
placement still fits, counting what the plan has already placed against it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from gpufleet.clouds import Cloud, is_cloud
from gpufleet.json_input import JsonInputError, read_json_file
from gpufleet.planner.gcp_machines import ACCELERATOR_TYPES, machine_gpus
from gpufleet.pricing_models import Pricing
from gpufleet.text_input import InputFileError

Market = Literal["on_demand", "spot"]
Unit = Literal["vcpus", "gpus"]
ANY_MACHINE = "*"
UNITS: dict[Cloud, Unit] = {"aws": "vcpus", "gcp": "gpus", "azure": "vcpus"}
# GCP's regional GPU quota metric per GPU SKU (Spot counts against PREEMPTIBLE_<metric>).
GCP_GPU_METRICS: dict[str, str] = {
    "T4": "NVIDIA_T4_GPUS",
    "V100": "NVIDIA_V100_GPUS",
    "P100": "NVIDIA_P100_GPUS",
    "P4": "NVIDIA_P4_GPUS",
    "A100": "NVIDIA_A100_GPUS",
    "A100-80GB": "NVIDIA_A100_80GB_GPUS",
    "H100": "NVIDIA_H100_GPUS",
    "H100-MEGA": "NVIDIA_H100_MEGA_GPUS",
    "H200": "NVIDIA_H200_GPUS",
    "L4": "NVIDIA_L4_GPUS",
}
GCP_SPOT_PREFIX = "PREEMPTIBLE_"
AZURE_SPOT_QUOTA = "lowPriorityCores"


def market_of(pricing: Pricing) -> Market:
    """The quota capacity bought at ``pricing`` counts against."""
    return "spot" if pricing == "spot" else "on_demand"


def aws_family(instance_type: str) -> str:
    """An EC2 type's family and generation (``p5.48xlarge`` -> ``p5``, ``g4dn.xlarge`` ->
    ``g4``, ``inf2.xlarge`` -> ``inf2``): what EC2's quota names are written in."""
    found = re.match(r"[a-z]*[0-9]*", instance_type.removeprefix("ml.").lower())
    return found[0] if found else ""


# Families EC2's quotas count under another's letters: Gr6 counts as G.
AWS_FAMILY_ALIASES: dict[str, str] = {"gr": "g"}


def aws_names(family: str) -> set[str]:
    """What a quota may name an EC2 family by: with its generation (``p5``), its letters
    (``p``), and their alias."""
    letters = re.match(r"[a-z]*", family)[0]  # type: ignore[index]
    return {family, letters, AWS_FAMILY_ALIASES.get(letters, letters)}


_AWS_QUOTA = re.compile(
    r"^(?:Running On-Demand (?P<od>.+?) instances|All (?P<spot>.+?) Spot Instance Requests)$"
)


def aws_quota_families(name: str) -> tuple[Market, frozenset[str]] | None:
    """The market and families an EC2 vCPU quota's name covers ("Running On-Demand G and VT
    instances" -> on-demand, {g, vt}; "All P4, P3 and P2 Spot Instance Requests" -> spot,
    {p4, p3, p2}; "All Standard (A, C, D, ...) Spot Instance Requests" -> spot, {a, c, d, ...});
    None for another quota."""
    found = _AWS_QUOTA.match(name.strip())
    if found is None:
        return None
    market: Market = "on_demand" if found["od"] else "spot"
    classes = found["od"] or found["spot"]
    inside = re.search(r"\(([^)]*)\)", classes)
    words = re.split(r",| and ", inside[1] if inside else classes)
    return market, frozenset(w.strip().lower() for w in words if w.strip())


def gcp_accelerator(instance_type: str, gpu: str) -> str | None:
    """The accelerator type a GCP machine carries, or an N1 machine attaches (``gpu``)."""
    try:
        return machine_gpus(instance_type).accelerator_type
    except ValueError:
        return ACCELERATOR_TYPES.get(gpu)


_SKU_OF_ACCELERATOR = {name: sku for sku, name in ACCELERATOR_TYPES.items()}


def gcp_metric(accelerator: str, market: Market) -> str | None:
    """The regional quota metric a GCP accelerator type counts against in ``market``."""
    metric = GCP_GPU_METRICS.get(_SKU_OF_ACCELERATOR.get(accelerator, ""))
    if metric is None:
        return None
    return f"{GCP_SPOT_PREFIX}{metric}" if market == "spot" else metric


def machine_covers(cloud: Cloud, instance_type: str, gpu: str) -> str | None:
    """What a quota's ``covers`` names a machine by: AWS family letters, GCP accelerator type,
    Azure size."""
    if cloud == "aws":
        return aws_family(instance_type)
    if cloud == "gcp":
        return gcp_accelerator(instance_type, gpu)
    return instance_type


def demand(cloud: Cloud, vcpus: float, gpus: int, instances: int) -> float:
    """What ``instances`` of a machine use of its cloud's quota unit."""
    return instances * (gpus if UNITS[cloud] == "gpus" else vcpus)


@dataclass(frozen=True)
class Quota:
    cloud: Cloud
    region: str
    name: str  # the cloud's name of it (its quota name, metric, or usage name)
    market: Market | None  # None: both (an Azure family quota counts every market's vCPUs)
    unit: Unit
    covers: frozenset[str]  # machines, as ``machine_covers`` names them; ANY_MACHINE: all
    limit: float
    used: float | None  # in use now; None where the cloud does not say
    code: str | None = None  # AWS's quota code

    @property
    def free(self) -> float:
        return self.limit - (self.used or 0.0)

    def applies(self, cloud: Cloud, region: str, covered: str | None, market: Market) -> bool:
        if self.cloud != cloud or self.region != region:
            return False
        if self.market is not None and self.market != market:
            return False
        if ANY_MACHINE in self.covers:
            return True
        if covered is None:
            return False
        names = aws_names(covered) if cloud == "aws" else {covered}
        return not names.isdisjoint(self.covers)

    def as_dict(self) -> dict[str, Any]:
        return {
            "cloud": self.cloud,
            "region": self.region,
            "name": self.name,
            "code": self.code,
            "market": self.market,
            "unit": self.unit,
            "covers": sorted(self.covers),
            "limit": self.limit,
            "used": self.used,
        }


class QuotaFileError(InputFileError):
    """A saved preflight that is not one."""


def quota_from_dict(entry: Any, where: str) -> Quota:
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: not an object")
    cloud, region, name = entry.get("cloud"), entry.get("region"), entry.get("name")
    market, unit, covers = entry.get("market"), entry.get("unit"), entry.get("covers")
    limit, used = entry.get("limit"), entry.get("used")
    if not (isinstance(cloud, str) and is_cloud(cloud)):
        raise ValueError(f"{where}.cloud: {cloud!r} is not a cloud")
    if not isinstance(region, str) or not isinstance(name, str):
        raise ValueError(f"{where}: region and name must be text")
    if market not in ("on_demand", "spot", None) or unit not in ("vcpus", "gpus"):
        raise ValueError(f"{where}: market or unit is not one gpufleet writes")
    if not isinstance(covers, list) or not all(isinstance(c, str) for c in covers):
        raise ValueError(f"{where}.covers: not a list of names")
    for label, value in (("limit", limit), ("used", used)):
        if value is None and label == "used":
            continue
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value < 0
        ):
            raise ValueError(f"{where}.{label}: {value!r} is not a number of {unit} (0 or more)")
    code = entry.get("code")
    return Quota(
        cloud,
        region,
        name,
        market,
        unit,
        frozenset(covers),
        float(limit),  # type: ignore[arg-type]
        None if used is None else float(used),
        code if isinstance(code, str) else None,
    )


@dataclass
class QuotaBook:
    """Quotas a placement must fit in, with what the plan has placed against each so far."""

    quotas: tuple[Quota, ...]
    placed: dict[int, float] = field(default_factory=dict)  # quota index -> amount

    def short(
        self,
        cloud: Cloud,
        region: str,
        covered: str | None,
        uses: Iterable[tuple[Market, float]],
    ) -> Quota | None:
        """The first quota that ``uses`` (amounts per market) would overrun; None if all fit.
        Where the preflight read the region's quotas and none covers the machine, it cannot
        be known to fit: that is short too (a quota of 0 named for what is missing)."""
        totals: dict[int, float] = {}
        read_here = any(q.cloud == cloud and q.region == region for q in self.quotas)
        for market, amount in uses:
            applying = [
                i for i, q in enumerate(self.quotas) if q.applies(cloud, region, covered, market)
            ]
            if amount and read_here and not applying:
                return Quota(
                    cloud,
                    region,
                    f"no quota read covers {covered or 'it'} ({market})",
                    market,
                    UNITS[cloud],
                    frozenset(),
                    0.0,
                    None,
                )
            for i in applying:
                if amount:
                    totals[i] = totals.get(i, 0.0) + amount
        for i, amount in totals.items():
            if self.placed.get(i, 0.0) + amount > self.quotas[i].free + 1e-9:
                return self.quotas[i]
        return None

    def place(
        self, cloud: Cloud, region: str, covered: str | None, uses: Iterable[tuple[Market, float]]
    ) -> None:
        for market, amount in uses:
            for i, quota in enumerate(self.quotas):
                if amount and quota.applies(cloud, region, covered, market):
                    self.placed[i] = self.placed.get(i, 0.0) + amount

    def fresh(self) -> QuotaBook:
        """The same quotas with nothing placed (each environment is planned on its own)."""
        return QuotaBook(self.quotas)


def quota_book(quotas: Iterable[Mapping[str, Any]], where: str) -> QuotaBook:
    return QuotaBook(tuple(quota_from_dict(q, f"{where}[{i}]") for i, q in enumerate(quotas)))


def load_quota_book(path: Path) -> QuotaBook:
    """A saved ``gpufleet preflight --format json``'s quotas; QuotaFileError otherwise."""
    try:
        data, _ = read_json_file(path, what="a saved preflight")
    except JsonInputError as exc:
        raise QuotaFileError.of(exc) from None
    problems = data.get("problems") if isinstance(data, dict) else None
    if isinstance(problems, list) and problems:
        # Clouds it could not read would be planned as if they had no quotas at all.
        unread = "; ".join(str(p) for p in problems[:3])
        raise QuotaFileError(
            str(path),
            f"the preflight could not read every cloud ({unread}): run it again where it can",
            line=1,
            field="problems",
        )
    quotas = data.get("quotas") if isinstance(data, dict) else None
    if not isinstance(quotas, list):
        raise QuotaFileError(
            str(path),
            "no quotas list: not what gpufleet preflight --format json writes",
            line=1,
            field="quotas",
        )
    try:
        return quota_book(quotas, "quotas")
    except ValueError as exc:
        field_name, _, problem = str(exc).partition(": ")
        raise QuotaFileError(str(path), problem, line=1, field=field_name) from None

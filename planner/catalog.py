"""The shipped GPU offer catalog: one row per purchasable GPU machine in a region (and zone).

The catalog is built offline by ``planner.catalog_build`` from a price snapshot and shipped as
``planner/data/catalog.csv``; loading it is a plain CSV read (a few milliseconds), so
``gpufleet plan`` stays fast. ``gpufleet catalog refresh`` (``live_prices``) writes a catalog of
the same columns from the clouds' own price APIs; ``GPUFLEET_CATALOG`` names the file every
command (plan, generate, cost, the policy pack) then prices from instead of the shipped one.

Zone is empty where a cloud prices per region (Azure); AWS zones are
AZ ids (``use1-az4``), which name the same physical zone in every account, unlike AZ names.
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Iterable, Iterator
from dataclasses import astuple, dataclass
from datetime import date
from functools import cache, cached_property
from pathlib import Path

from gpufleet.clouds import CLOUDS, Cloud, is_cloud
from gpufleet.text_input import InputFileError, read_text_file

COLUMNS = (
    "cloud",
    "region",
    "zone",
    "instance_type",
    "gpu_name",
    "gpu_count",
    "gpu_memory_gib",
    "vcpus",
    "memory_gib",
    "on_demand_hourly",
    "spot_hourly",
    "source",
    "as_of",
)

DEFAULT_CATALOG_PATH = Path(__file__).parent / "data" / "catalog.csv"
# The catalog every command prices from when set (a refreshed one), else the shipped one.
CATALOG_ENV = "GPUFLEET_CATALOG"
# A catalog older than this many days is warned of (``GPUFLEET_CATALOG_MAX_AGE_DAYS``).
MAX_AGE_ENV = "GPUFLEET_CATALOG_MAX_AGE_DAYS"
DEFAULT_MAX_AGE_DAYS = 14
# The shipped catalog is 2,759 rows, 365 KB; a refresh of every GPU offer of the three clouds
# in every zone is some 15,000. Rows bound memory and time: each is an object, a table renders
# them all and planning looks at each offer for each workload.
MAX_CATALOG_BYTES = 32 * 1024 * 1024
MAX_CATALOG_ROWS = 50_000


@dataclass(frozen=True, slots=True)
class Offer:
    cloud: Cloud
    region: str
    zone: str
    instance_type: str
    gpu_name: str
    gpu_count: int
    gpu_memory_gib: float
    vcpus: float
    memory_gib: float
    on_demand_hourly: float
    spot_hourly: float | None
    source: str
    as_of: str

    @property
    def location(self) -> str:
        return f"{self.region}/{self.zone}" if self.zone else self.region

    def as_dict(self) -> dict[str, object]:
        return dict(zip(COLUMNS, astuple(self), strict=True))


def format_number(value: float | int | None) -> str:
    """Stable text for a number: no float noise, no trailing zeros, empty for None."""
    if value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return text or "0"


def offer_to_row(offer: Offer) -> list[str]:
    return [value if isinstance(value, str) else format_number(value) for value in astuple(offer)]


def write_catalog_csv(offers: Iterable[Offer]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for offer in offers:
        writer.writerow(offer_to_row(offer))
    return buffer.getvalue()


class CatalogError(InputFileError):
    """A catalog file that cannot be used: ``file:line: column: message``."""


# Every number a row holds must be positive and finite: a price of 0, below 0 or NaN would make
# the cheapest plan a nonsense one.
_POSITIVE = ("gpu_memory_gib", "vcpus", "memory_gib", "on_demand_hourly", "spot_hourly")


def _parse_rows(lines: Iterable[str], file: str) -> Iterator[Offer]:
    """Offers from catalog CSV lines; CatalogError naming the line and column of a bad row."""
    reader = csv.reader(lines)
    try:
        header = next(reader, [])
        if tuple(header) != COLUMNS:
            raise CatalogError(
                file, f"header is {header}, expected {list(COLUMNS)}", field="header"
            )
        for number, row in enumerate(reader, 1):
            if number > MAX_CATALOG_ROWS:
                raise CatalogError(
                    file,
                    f"more than {MAX_CATALOG_ROWS:,} rows (the limit is {MAX_CATALOG_ROWS:,})",
                    line=reader.line_num,
                    field="row",
                )
            try:
                (
                    cloud,
                    region,
                    zone,
                    itype,
                    gpu,
                    count,
                    mem,
                    vcpus,
                    ram,
                    od,
                    spot,
                    source,
                    as_of,
                ) = row
                if not is_cloud(cloud):
                    raise ValueError(cloud)
                offer = Offer(
                    cloud,
                    region,
                    zone,
                    itype,
                    gpu,
                    int(count),
                    float(mem),
                    float(vcpus),
                    float(ram),
                    float(od),
                    float(spot) if spot else None,
                    source,
                    as_of,
                )
                if not _sensible(offer):
                    raise ValueError(row)
                yield offer
            except ValueError:
                # Rare, so the slow path names the column only when a row is bad.
                column, problem = _row_problem(row)
                raise CatalogError(file, problem, line=reader.line_num, field=column) from None
    except csv.Error as exc:  # a field past csv's size limit, a NUL byte
        raise CatalogError(
            file, f"not a CSV row: {exc}", line=reader.line_num, field="row"
        ) from None


def _sensible(offer: Offer) -> bool:
    numbers = [getattr(offer, column) for column in _POSITIVE]
    return (
        offer.gpu_count >= 1
        and all(
            n is None or (math.isfinite(n) and n > 0)
            for n in numbers  # None: no spot offer
        )
        and _dated(offer.as_of)
    )


def _dated(as_of: str) -> bool:
    """A date, or a time whose first ten characters are one: what the catalog's age is."""
    try:
        date.fromisoformat(as_of[:10])
    except ValueError:
        return False
    return True


def _row_problem(row: list[str]) -> tuple[str, str]:
    if len(row) != len(COLUMNS):
        return "row", f"{len(row)} columns, expected {len(COLUMNS)}"
    field: dict[str, str] = dict(zip(COLUMNS, row, strict=True))
    if not is_cloud(field["cloud"]):
        return "cloud", f"{field['cloud']!r} is not one of {', '.join(CLOUDS)}"
    try:
        if int(field["gpu_count"]) < 1:
            return "gpu_count", f"{field['gpu_count']!r} is not a GPU count (1 or more)"
    except ValueError:
        return "gpu_count", f"{field['gpu_count']!r} is not a whole number"
    for column in _POSITIVE:
        if column == "spot_hourly" and not field[column]:
            continue  # no spot offer
        try:
            number = float(field[column])
        except ValueError:
            return column, f"{field[column]!r} is not a number"
        if not (math.isfinite(number) and number > 0):
            return column, f"{field[column]!r} must be a positive number"
    if not _dated(field["as_of"]):
        return "as_of", f"{field['as_of']!r} is not a date (YYYY-MM-DD, or a time from one)"
    return "row", "unreadable row"


@dataclass(frozen=True)
class MachineShape:
    """What one instance type carries, wherever it is offered."""

    instance_type: str
    gpu_name: str
    gpu_count: int
    gpu_memory_gib: float
    vcpus: float
    memory_gib: float


@dataclass(frozen=True)
class Catalog:
    offers: tuple[Offer, ...]

    @cached_property
    def as_of(self) -> str:
        """The day its oldest price was read: what "prices as of" may honestly say of it."""
        return min((o.as_of for o in self.offers), default="")

    @cached_property
    def _shapes(self) -> dict[tuple[str, str], MachineShape]:
        shapes: dict[tuple[str, str], MachineShape] = {}
        for o in self.offers:
            shapes.setdefault(
                (o.cloud, o.instance_type),
                MachineShape(
                    o.instance_type,
                    o.gpu_name,
                    o.gpu_count,
                    o.gpu_memory_gib,
                    o.vcpus,
                    o.memory_gib,
                ),
            )
        return shapes

    def shape(self, cloud: Cloud, instance_type: str) -> MachineShape | None:
        """GPUs, vCPUs and memory of an AWS or Azure size (GCP N1 hosts carry several GPU types
        under one name, so for them this is the first offer's shape)."""
        return self._shapes.get((cloud, instance_type))

    def instance_types(self, cloud: Cloud) -> set[str]:
        return {itype for c, itype in self._shapes if c == cloud}

    def regions(self, cloud: Cloud) -> set[str]:
        return {o.region for o in self.offers if o.cloud == cloud}

    def gpu_names(self) -> set[str]:
        return {o.gpu_name for o in self.offers}

    def filter(
        self,
        *,
        cloud: Cloud | None = None,
        gpu: str | None = None,
        region: str | None = None,
    ) -> list[Offer]:
        return [
            o
            for o in self.offers
            if (cloud is None or o.cloud == cloud)
            and (gpu is None or o.gpu_name == gpu)
            and (region is None or o.region == region)
        ]


def parse_catalog_text(text: str, name: str) -> Catalog:
    """A catalog from its CSV text (``name``: the file it is, for messages); CatalogError for
    a bad one."""
    return Catalog(tuple(_parse_rows(io.StringIO(text, newline=""), name)))


def catalog_age_days(as_of: str, today: date) -> int | None:
    """Whole days since ``as_of`` (a date, or a time whose first ten characters are one);
    None when it is not one."""
    try:
        return (today - date.fromisoformat(as_of[:10])).days
    except ValueError:
        return None


def max_catalog_age_days() -> int:
    """The age past which a catalog is warned of: ``GPUFLEET_CATALOG_MAX_AGE_DAYS``, else 14.
    A value that is not a whole number of days is the default (the warning is advice)."""
    text = os.environ.get(MAX_AGE_ENV, "")
    return int(text) if text.isdigit() and len(text) < 6 else DEFAULT_MAX_AGE_DAYS


def load_catalog(path: Path | None = None) -> Catalog:
    """Load a catalog CSV (``GPUFLEET_CATALOG``'s, else the shipped one, by default);
    CatalogError for a bad file."""
    if path is None:
        chosen = os.environ.get(CATALOG_ENV)
        if chosen:
            return _load_named(chosen)
        return _load_default()
    try:
        text = read_text_file(path, what="a catalog", limit=MAX_CATALOG_BYTES)
        return parse_catalog_text(text, str(path))
    except MemoryError:
        raise CatalogError(str(path), "too large to read as a catalog: out of memory") from None


@cache
def _load_named(path: str) -> Catalog:
    # One read per process: the planner, the cost engine and the pack ask for it many times.
    return load_catalog(Path(path))


@cache
def _load_default() -> Catalog:
    with DEFAULT_CATALOG_PATH.open(newline="", encoding="utf-8") as handle:
        return Catalog(tuple(_parse_rows(handle, str(DEFAULT_CATALOG_PATH))))

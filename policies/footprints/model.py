"""What a GPU footprint is, and the catalog it is read against.

A ``GpuFootprint`` is what GPU capacity one resource describes: its machines (``Machine``: a
type with its GPUs), how many instances at most, in which market (``pricing_models.Market``),
where, and what could not be determined. ``MachineCatalog`` looks machines and their prices up
in the shipped catalog by cloud and instance type.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from statistics import fmean

from gpufleet.clouds import Cloud
from gpufleet.planner.catalog import Catalog, Offer, load_catalog
from gpufleet.planner.pricing import sagemaker_markup
from gpufleet.pricing_models import HOURS_PER_MONTH, Market


@dataclass(frozen=True)
class Machine:
    cloud: Cloud
    instance_type: str
    gpu_name: str
    gpus: int
    # SageMaker bills ml.* above the EC2 rate of the same machine.
    sagemaker: bool = False


@dataclass(frozen=True)
class GpuFootprint:
    cloud: Cloud
    kind: str  # what it is, for messages: "launch template", "Auto Scaling group", ...
    is_template: bool
    machines: tuple[Machine, ...] = ()
    # Why the machine or the count cannot be determined; empty when both are known.
    undetermined: tuple[str, ...] = ()
    instances: float | None = None  # the most instances it runs (capacity only)
    # Properties referencing a template that supplies the machines (resolve_template).
    template_properties: tuple[str, ...] = ()
    # None when the template decides (market options).
    market: Market | None = None
    # Of ``instances``, how many run on-demand when the rest is spot (ASG / fleet mixes).
    on_demand_instances: float | None = None
    region: str | None = None
    hours_per_month: float = HOURS_PER_MONTH

    @property
    def max_gpus_per_machine(self) -> int:
        return max((m.gpus for m in self.machines), default=0)

    @property
    def total_gpus(self) -> float | None:
        if self.instances is None or not self.machines:
            return None
        return self.instances * self.max_gpus_per_machine


class MachineCatalog:
    """GPU shapes and prices from a catalog, looked up by cloud and machine type."""

    def __init__(self, catalog: Catalog) -> None:
        self._offers: dict[tuple[str, str], list[Offer]] = {}
        for offer in catalog.offers:
            key = (offer.cloud, offer.instance_type.lower())
            self._offers.setdefault(key, []).append(offer)

    def machine(
        self, cloud: Cloud, instance_type: str, attached: tuple[str, int] | None = None
    ) -> Machine | None:
        """The machine, or None when the catalog does not know the type (or pairing)."""
        sagemaker = cloud == "aws" and instance_type.startswith("ml.")
        base = instance_type.removeprefix("ml.") if sagemaker else instance_type
        offers = self._matching(cloud, base, attached)
        if not offers:
            return None
        first = offers[0]
        return Machine(cloud, instance_type, first.gpu_name, first.gpu_count, sagemaker)

    def hourly(self, machine: Machine, region: str | None, market: Market) -> float | None:
        """Mean catalog price per machine-hour in ``region`` (all regions when None): spot
        for the spot market, on-demand for any other."""
        base = machine.instance_type.removeprefix("ml.") if machine.sagemaker else None
        offers = self._matching(
            machine.cloud,
            base or machine.instance_type,
            (machine.gpu_name, machine.gpus) if machine.cloud == "gcp" else None,
        )
        if region is not None:
            offers = [o for o in offers if o.region == region] or []
        if not offers:
            return None
        if market == "spot":
            prices = [o.spot_hourly for o in offers if o.spot_hourly is not None]
        else:
            prices = [o.on_demand_hourly for o in offers]
        if not prices:
            return None
        price = fmean(prices)
        if machine.sagemaker:
            markup = sagemaker_markup(base or "")
            if markup is None:
                return None
            price *= markup
        return price

    def _matching(
        self, cloud: Cloud, instance_type: str, attached: tuple[str, int] | None
    ) -> list[Offer]:
        offers = self._offers.get((cloud, instance_type.lower()), [])
        if attached is not None:
            offers = [o for o in offers if (o.gpu_name, o.gpu_count) == attached]
        return offers


@cache
def shipped_machine_catalog() -> MachineCatalog:
    return MachineCatalog(load_catalog())

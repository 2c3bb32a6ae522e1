"""What a GPU footprint is, and the catalog machines are looked up in.

A ``GpuFootprint`` is the GPU capacity one resource describes: the machines it may launch
(``Machine``: a type with its GPUs), how much of it — in capacity units, which are instances
unless the resource weights its machines (an Auto Scaling group counting GPUs or vCPUs) — both
what its own scaling settings ask for (``expected_units``: desired or minimum size) and the
most it may hold (``max_units``), in which market (``pricing_models.Market``), where, and what
could not be determined. ``MachineCatalog`` knows each machine's GPUs from the shipped catalog.
Prices are not here: ``planner.rates`` has them, for the cost engine and the planner alike.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from functools import cache

from gpufleet.clouds import CLOUDS, Cloud
from gpufleet.planner.catalog import Catalog, Offer, load_catalog
from gpufleet.planner.rates import ec2_type, is_sagemaker_type
from gpufleet.pricing_models import Market

# Capacity units a machine counts for when a resource sizes itself in vCPUs or memory
# (an Auto Scaling group's desiredCapacityType, a fleet's target capacity unit type).
VCPU_UNITS = "vcpu"
MEMORY_MIB_UNITS = "memory-mib"


@dataclass(frozen=True)
class Machine:
    cloud: Cloud
    instance_type: str
    gpu_name: str
    gpus: int
    vcpus: float = 0.0
    memory_gib: float = 0.0

    @property
    def sagemaker(self) -> bool:
        """SageMaker bills ml.* machines above the EC2 rate of the same machine."""
        return self.cloud == "aws" and is_sagemaker_type(self.instance_type)

    @property
    def attached(self) -> tuple[str, int] | None:
        """The GPUs as a catalog pairing, for machine types that carry several kinds (GCP N1
        hosts take attached GPUs); None where the type alone says."""
        return (self.gpu_name, self.gpus) if self.cloud == "gcp" else None


@dataclass(frozen=True)
class GroupVersion:
    """One of the versions a group launches from several templates (a GCP managed instance
    group's ``versions``): the template it names (None when that is not known), and its size
    when fixed (None for a percentage, or for the version that takes the rest)."""

    template: str | None
    fixed: float | None
    takes_rest: bool


@dataclass(frozen=True)
class GpuFootprint:
    # None for capacity of no cloud gpufleet knows: GPUs a Kubernetes workload or another
    # provider's resource asks for, whose machines are somewhere gpufleet cannot see.
    cloud: Cloud | None
    kind: str  # what it is, for messages: "launch template", "Auto Scaling group", ...
    is_template: bool
    # The expected use above its minimum the resource declares other than by a tag (a
    # component's registered output), in minutes a month.
    declared_minutes: int | None = None
    # Sized by an active autoscaler of its own: between its min and max, as load decides.
    scales_itself: bool = False
    # Why, once its autoscaler has added capacity, nothing takes it away (no scale-in policy,
    # a GCP autoscaler that only scales out): then it runs at its max size.
    never_scales_in: str | None = None
    # Its scheduled actions are suspended (an Auto Scaling group's ScheduledActions process):
    # what they set does not happen.
    schedules_suspended: bool = False
    # Capacity-unit minutes a week its own scaling schedule runs it (``weekly_use``); None when
    # nothing schedules it.
    weekly_use: float | None = None
    # Its schedule sets only its bounds (a min raised for a while): what runs ask for above
    # them (its declared use) comes on top of what the schedule runs.
    runs_above_schedule: bool = False
    # Hours it keeps its capacity after each run before scaling down (an Azure ML cluster's
    # idle time-out): each run the declared use is made of adds them, at its max size.
    idle_hours_per_run: float | None = None
    machines: tuple[Machine, ...] = ()
    # Capacity units one instance of each machine counts for (same order as ``machines``);
    # empty: one unit per instance, or as ``capacity_unit`` says.
    weights: tuple[float, ...] = ()
    capacity_unit: str = "units"  # or VCPU_UNITS / MEMORY_MIB_UNITS
    # Why the machine or the size cannot be determined; empty when both are known.
    undetermined: tuple[str, ...] = ()
    # Some of that is a value unknown during a preview (known once deployed).
    unknown: bool = False
    # Of ``undetermined``, what is about its size alone, not which machines it launches: a
    # group whose templates (in the stack) hold no GPUs holds none, however many it runs.
    size_reasons: tuple[str, ...] = ()
    expected_units: float | None = None  # what its scaling settings run (capacity only)
    max_units: float | None = None  # the most it may hold (capacity only)
    # Its own min size, where it has one apart from its expected size (an Auto Scaling group's
    # ``minSize``): schedules that set its desired size cannot take it below.
    min_units: float | None = None
    # Properties referencing a template that supplies the machines (resolve_template).
    template_properties: tuple[str, ...] = ()
    # None when the template decides (market options).
    market: Market | None = None
    # A spot / on-demand mix: on-demand units of U are min(base, U) + the percentage of the
    # rest (Auto Scaling groups; fleets give a fixed on-demand target: percentage 0).
    on_demand_base: float | None = None
    on_demand_percent: float | None = None
    region: str | None = None
    # The zone its settings name (an AWS AZ name or id, a GCP zone), and whether its capacity
    # runs in one zone: then spot is that zone's price (``planner.rates``), not the region's.
    zone: str | None = None
    one_zone: bool = False
    # The AWS subnets it launches into (their zones are the stack's to say: ``ZoneNames``).
    subnets: tuple[str, ...] = ()
    # A job billed per run for at most this many hours (a SageMaker training job); None for
    # capacity held while the resource exists.
    run_hours: float | None = None
    # Capacity a run starts outside the stack (a job template): not part of its monthly cost.
    outside_stack: bool = False
    # For market "in_reservation": the reservations it names, and the market it would be in
    # were none of them in the stack (then the stack pays for it after all).
    reservation_names: tuple[str, ...] = ()
    market_outside_reservation: Market | None = None
    # The properties through which it names a reservation (for capacity in one) or the group a
    # reservation belongs to (for a reservation): their property dependencies link the two in
    # a preview, when ids and names are still unknown.
    reservation_properties: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # what its price assumes, for people
    spot_name: str = "spot"  # what its provider calls spot capacity
    # The versions it launches, when more than one (``stack_capacity`` resolves them).
    versions: tuple[GroupVersion, ...] = ()
    # Its first units, launched from a template of their own and priced (and matched to
    # reservations) as this footprint, whose max_units is how many: a version of fixed size,
    # such as an always-on base in a reservation under a Spot burst. The rest of the group is
    # priced as the footprint itself.
    fixed_share: GpuFootprint | None = None
    # Which part of its resource it is, for a resource of several (``nodePools[gpu]``).
    part: str | None = None

    def options(self) -> list[tuple[Machine, float]]:
        """Each machine it may launch, with the capacity units one instance of it counts for."""
        return [(m, self._weight(i, m)) for i, m in enumerate(self.machines)]

    def _weight(self, index: int, machine: Machine) -> float:
        if self.weights:
            return self.weights[index]
        if self.capacity_unit == VCPU_UNITS:
            return machine.vcpus or 1.0
        if self.capacity_unit == MEMORY_MIB_UNITS:
            return machine.memory_gib * 1024 or 1.0
        return 1.0

    def on_demand_units(self, units: float) -> float:
        """Of ``units``, how many run on-demand (the rest spot)."""
        if self.on_demand_base is None and self.on_demand_percent is None:
            return 0.0 if self.market == "spot" else units
        base = min(self.on_demand_base or 0.0, units)
        percent = 100.0 if self.on_demand_percent is None else self.on_demand_percent
        return base + (units - base) * percent / 100.0

    @property
    def max_gpus(self) -> float | None:
        """The most GPUs it may hold: max size in whichever of its machines gives the most
        (its fixed share in that share's machines)."""
        holding = self.largest_holding()
        if self.max_units is None or not holding:
            return None
        return sum(count * machine.gpus for machine, count in holding)

    @property
    def max_gpus_beyond_reservations(self) -> float | None:
        """Of ``max_gpus``, those not already held by a reservation of the stack it runs in
        (counted there): what it adds to the stack's GPUs."""
        if self.market == "in_reservation":
            return 0.0
        share, total = self.fixed_share, self.max_gpus
        if share is None or total is None:
            return total
        # Its share's own GPUs beyond its reservations (a share partly in one has some).
        held, beyond = share.max_gpus, share.max_gpus_beyond_reservations
        if held is None or beyond is None:
            return total
        return total - held + beyond

    def largest_holding(self) -> list[tuple[Machine, float]]:
        """The machines (and instances of each) that make ``max_gpus``: at max size, in
        whichever of its machines holds the most; its fixed share in the share's own. Where
        one part's machines cannot be read, the group is taken as all the other's; empty when
        neither can."""
        units, share = self.max_units or 0.0, self.fixed_share
        if share is not None and (not share.machines or share.max_units is None):
            share = None
        if not self.machines:
            return [] if share is None else replace(share, max_units=units).largest_holding()
        held: list[tuple[Machine, float]] = []
        if share is not None and share.max_units is not None:
            held = share.largest_holding()
            units = max(units - share.max_units, 0.0)
        rest = max(
            ((m, instances(units, w)) for m, w in self.options()), key=lambda o: o[1] * o[0].gpus
        )
        return [*held, rest]

    @property
    def largest_option(self) -> tuple[Machine, float]:
        """The machine (and its instance count at max size) that makes ``max_gpus``, for a
        group of one kind."""
        units = self.max_units or 0.0
        return max(
            ((m, instances(units, w)) for m, w in self.options()), key=lambda o: o[1] * o[0].gpus
        )


def instances(units: float, weight: float) -> float:
    """Instances of a machine that counts for ``weight`` units it takes to provide ``units``: a
    weighted group launches until the units are met, so the last instance may overshoot; a
    share of instances (an on-demand percentage) rounds up to whole ones too."""
    return float(math.ceil(units / weight - 1e-9))


class MachineCatalog:
    """GPU shapes from a catalog, looked up by cloud and machine type."""

    def __init__(self, catalog: Catalog) -> None:
        self._offers: dict[tuple[str, str], list[Offer]] = {}
        self._by_cloud: dict[str, list[Machine]] = {}
        for offer in catalog.offers:
            key = (offer.cloud, offer.instance_type.lower())
            self._offers.setdefault(key, []).append(offer)

    def machines_of(self, cloud: Cloud) -> list[Machine]:
        """Every GPU machine the catalog knows on ``cloud`` (one per type and GPU pairing),
        for resources that choose among machines by attributes or by family."""
        if cloud in self._by_cloud:
            return self._by_cloud[cloud]
        found: list[Machine] = []
        for (offer_cloud, _), offers in self._offers.items():
            if offer_cloud != cloud:
                continue
            pairings = {(o.gpu_name, o.gpu_count): o for o in offers}
            for o in pairings.values():
                found.append(
                    Machine(cloud, o.instance_type, o.gpu_name, o.gpu_count, o.vcpus, o.memory_gib)
                )
        self._by_cloud[cloud] = found
        return found

    def machine(
        self, cloud: Cloud, instance_type: str, attached: tuple[str, int] | None = None
    ) -> Machine | None:
        """The machine, or None when the catalog does not know the type (or pairing)."""
        base = ec2_type(instance_type) if cloud == "aws" else instance_type
        offers = self._offers.get((cloud, base.lower()), [])
        if attached is not None:
            offers = [o for o in offers if (o.gpu_name, o.gpu_count) == attached]
        if not offers:
            return None
        first = offers[0]
        return Machine(
            cloud, instance_type, first.gpu_name, first.gpu_count, first.vcpus, first.memory_gib
        )

    def machine_on_any_cloud(self, named: str) -> Machine | None:
        """The GPU machine a name gives, on whichever cloud sells it (a URL's last segment
        read); a service-prefixed EC2 type (``stream.graphics.g4dn.xlarge``) gives the EC2
        machine it runs on, under its own name (its own price is not the catalog's)."""
        name = named.strip().rsplit("/", 1)[-1]
        if not name or len(name) > _LONGEST_NAME:
            return None
        for cloud in CLOUDS:
            # As each cloud's readers spell it: AWS and GCP names in lower case.
            spelled = name if cloud == "azure" else name.lower()
            if (found := self.machine(cloud, spelled)) is not None:
                return found
        tail = _EC2_TAIL.search(name.lower())
        if tail is None or tail[1] == name.lower():
            return None
        found = self.machine("aws", tail[1])
        return None if found is None else replace(found, instance_type=name.lower())


# A service-prefixed EC2 type's last two segments: the EC2 machine it runs on.
# Names longer than any machine's are not looked up (nor searched: the pattern is quadratic).
_LONGEST_NAME = 200
_EC2_TAIL = re.compile(r"([a-z][a-z0-9-]*\.[a-z0-9-]+)$")


@cache
def shipped_machine_catalog() -> MachineCatalog:
    return MachineCatalog(load_catalog())

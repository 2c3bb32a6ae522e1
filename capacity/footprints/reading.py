"""How footprint readers read a resource, and where they are registered.

A reader is a function of one resource's properties (``Reading``) returning its
``GpuFootprint``, or None when it holds no GPUs. Each cloud's readers live in that cloud's
module and register under the resource types they read with ``@reads(type, ...)``;
``READERS`` is the registry ``read_gpu_footprint`` dispatches on.

``Reading`` gives every reader the same rules for what it cannot know: a machine type that is
unknown during a preview, read from an invoke (not run offline), a secret, not a name, or
looks like a GPU type the catalog does not have, or a count that is unknown or not a whole
number in range (never negative, NaN or infinite), is recorded as *undetermined* (never
silently passed, never priced as $0).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpufleet.capacity.footprints.model import GpuFootprint, Machine, MachineCatalog
from gpufleet.capacity.footprints.weekly_use import MAX_CHANGES, SetPoint, Window
from gpufleet.capacity.property_values import get_path, is_unknown
from gpufleet.clouds import Cloud
from gpufleet.engine.wire import INVOKE_PLACEHOLDER, OFFLINE_UNKNOWN, SECRET_PLACEHOLDER
from gpufleet.pricing_models import Market

# A resource of several parts (a cluster's node pools, an endpoint's variants) reads as a
# footprint per part holding GPUs, each named by its ``part``.
Reader = Callable[["Reading"], "GpuFootprint | tuple[GpuFootprint, ...] | None"]
READERS: dict[str, Reader] = {}
# Where a GPU resource carries its cost tags when that is not a top-level ``tags`` / ``labels``
# map (the taggable table's): a GKE node pool's VMs take ``nodeConfig.resourceLabels``.
TAG_PATHS: dict[str, str] = {}


@dataclass(frozen=True)
class Scaler:
    """What a resource that sizes a group (a GCP autoscaler) says of its size: the group is
    the resource its ``target`` property names; while ``active``, the group runs from
    ``least`` up to ``most``; off, it keeps the size it was given, up to ``most``."""

    target_property: str
    least: float | None
    most: float | None
    active: bool
    undetermined: tuple[str, ...] = ()
    # The expected use the scaler declares for its group (its description), in minutes.
    declared_minutes: int | None = None
    # Its weekly schedule, when it has one (``weekly_use``): sizes set at minutes of the week,
    # or windows that hold a size; ``schedule_unread`` says why a schedule could not be read.
    set_points: tuple[SetPoint, ...] = ()
    windows: tuple[Window, ...] = ()
    schedule_unread: str | None = None
    # False for a scaler that only sets sizes (an AWS scheduled action): the group's own
    # bounds hold, whatever ``least`` and ``most`` say.
    bounds: bool = True
    # The time zones its schedule's entries are in: minutes of the week in two zones do not
    # add up without their offsets, so a schedule over several is not read.
    time_zones: frozenset[str] = frozenset()
    # Which part of its target it sizes (an endpoint configuration's variant, a cluster's core
    # group); None: all of it.
    part: str | None = None
    # The names its target property gives, most specific first, when it holds more than one
    # name (an Application Auto Scaling resource id: ``endpoint/<name>/variant/<name>``).
    names: tuple[str, ...] = ()
    # Properties of a linked resource that holds no capacity itself through which the capacity
    # is reached (a SageMaker endpoint's ``endpointConfigName``).
    through: tuple[str, ...] = ()
    # Properties by which other resources join its target and are sized by it too, up to its
    # max (an EMR cluster's task groups, by their ``clusterId``).
    members: tuple[str, ...] = ()
    # The unit its sizes count in, when not its target's own (EMR managed scaling in vCPUs).
    capacity_unit: str | None = None
    # Some of what it cannot determine is values only unknown during a preview.
    unknown: bool = False
    # It moves GPU capacity of another resource: a link it cannot follow to capacity
    # gpufleet reads (a target in the stack of a type with no reader) is undetermined.
    must_link: bool = False
    # Instances it adds to its target's size, on top of what sizes it otherwise, while it holds
    # them (a GCE resize request's ``resizeBy``, an Azure standby pool's running VMs).
    adds: float = 0.0
    # What its schedule sets of the group's bounds (AWS scheduled actions may set the min and
    # max sizes as well as the desired one: ``weekly_use.bounded_use``).
    min_points: tuple[SetPoint, ...] = ()
    max_points: tuple[SetPoint, ...] = ()
    # Sizes a one-off action sets for good, once it has run (the group keeps a min or desired
    # size until something sets it again): raises only, an action lowering them may be long
    # past or far ahead.
    raises_min: float | None = None
    raises_desired: float | None = None
    # Which way it moves the group on load: a scaling policy that only adds capacity, beside
    # none that removes it, leaves the group at its max once load has come.
    scales_out: bool = False
    scales_in: bool = False
    # Its schedule sets the desired size, which may take the group down (unless the group's
    # scheduled actions are suspended).
    schedule_scales_in: bool = False
    # Why its direction could not be read (then taken as adding only, the dearer).
    direction_unread: str | None = None
    # It scales on a load signal (an AWS scaling policy, Azure rules): above a schedule that
    # sets sizes, what load adds is the group's declared use, not nothing.
    load_scaling: bool = False
    # It sets the group's size (a desired or min size), not only its bounds: unread, it may
    # hold the group up.
    sets_size: bool = False

    def merged(self, other: Scaler) -> Scaler:
        """Two scalers of one group (AWS scheduled actions, one resource each) as one."""
        unread = self.schedule_unread or other.schedule_unread
        points = (*self.set_points, *other.set_points)
        windows = (*self.windows, *other.windows)
        lows = (*self.min_points, *other.min_points)
        highs = (*self.max_points, *other.max_points)
        if len(points) + len(windows) + len(lows) + len(highs) > MAX_CHANGES:
            points, windows, lows, highs = (), (), (), ()
            unread = unread or f"more than {MAX_CHANGES:,} changes a week"
        zones = self.time_zones | other.time_zones
        return Scaler(
            self.target_property,
            _least(self.least, other.least),
            _most(self.most, other.most),
            self.active or other.active,
            (*self.undetermined, *other.undetermined),
            self.declared_minutes if self.declared_minutes is not None else other.declared_minutes,
            points,
            windows,
            unread,
            self.bounds or other.bounds,
            zones,
            self.part if self.part is not None else other.part,
            self.names or other.names,
            tuple(dict.fromkeys((*self.through, *other.through))),
            tuple(dict.fromkeys((*self.members, *other.members))),
            self.capacity_unit or other.capacity_unit,
            bool(self.undetermined or other.undetermined)
            and (self.unknown or not self.undetermined)
            and (other.unknown or not other.undetermined),
            self.must_link or other.must_link,
            adds=self.adds + other.adds,
            min_points=lows,
            max_points=highs,
            raises_min=_most(self.raises_min, other.raises_min),
            raises_desired=_most(self.raises_desired, other.raises_desired),
            scales_out=self.scales_out or other.scales_out,
            scales_in=self.scales_in or other.scales_in,
            schedule_scales_in=self.schedule_scales_in or other.schedule_scales_in,
            direction_unread=self.direction_unread or other.direction_unread,
            load_scaling=self.load_scaling or other.load_scaling,
            sets_size=self.sets_size or other.sets_size,
        )


def _least(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else min(a, b)


def _most(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


ScalerReader = Callable[["Reading"], Scaler | None]
SCALERS: dict[str, ScalerReader] = {}


def sizes(*type_tokens: str) -> Callable[[ScalerReader], ScalerReader]:
    """Register a reader of a resource that sizes a group."""

    def register(reader: ScalerReader) -> ScalerReader:
        for token in type_tokens:
            SCALERS[token] = reader
        return reader

    return register


# A resource whose settings another resource it names completes (an Elastic Beanstalk
# environment, its configuration template's; a Dataproc cluster, its autoscaling policy's; a
# container app, its environment's): ``stack_capacity`` reads it with the other's properties
# taken in by ``Inherit(own, named)``.
Inherit = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Inherits:
    # The property that names the other resource: a dotted path for one nested in an object
    # (the engine records the dependencies of its first step).
    named_by: str
    named_types: tuple[str, ...]  # the types it can be
    inherit: Inherit


# Each type's ways, tried in order until one names a resource (a container app names its
# environment by ``managedEnvironmentId`` or ``environmentId``).
INHERITS: dict[str, tuple[Inherits, ...]] = {}


def inherits(type_token: str, named_by: str, *named_types: str) -> Callable[[Inherit], Inherit]:
    """Register how a resource type takes in the resource (of ``named_types``) its
    ``named_by`` property names."""

    def register(inherit: Inherit) -> Inherit:
        way = Inherits(named_by, named_types, inherit)
        INHERITS[type_token] = (*INHERITS.get(type_token, ()), way)
        return inherit

    return register


# More instances (or capacity units) than any group holds: a size above it is a mistake, not
# a price to multiply.
MAX_COUNT = 1_000_000

# Machine type names that look like GPU types, per cloud: one the catalog does not know is
# reported as undetermined rather than taken for a CPU machine.
# AWS's accelerated instance categories: a GPU family is one of them and its generation
# (p5, g6e, p6-b200), also under SageMaker's ``ml.`` names.
AWS_ACCELERATED_CATEGORIES = ("p", "g", "trn", "inf", "dl", "gr", "vt")
_GPU_FAMILY: dict[Cloud, re.Pattern[str]] = {
    "aws": re.compile(rf"^(?:ml\.)?(?:{'|'.join(AWS_ACCELERATED_CATEGORIES)})\d", re.I),
    "gcp": re.compile(r"^(a\d+[a-z]?|g\d+)-", re.I),
    "azure": re.compile(r"^standard_n", re.I),
}


def reads(*type_tokens: str, tags: str | None = None) -> Callable[[Reader], Reader]:
    """Register a reader for these resource types (``tags``: the dotted path of the map their
    cost tags are in, where it is not the taggable table's)."""

    def register(reader: Reader) -> Reader:
        for token in type_tokens:
            if token in READERS:
                raise ValueError(
                    f"two footprint readers for {token} (a type promoted to a reader of its "
                    "own leaves NAMED_MACHINE_TYPES in capacity/footprints/coverage.py)"
                )
            READERS[token] = reader
            if tags is not None:
                TAG_PATHS[token] = tags
        return reader

    return register


def looks_like_gpu(cloud: Cloud, instance_type: str) -> bool:
    """Whether a machine type (or an AWS family: ``p6-b200``) is named like a GPU one."""
    return bool(_GPU_FAMILY[cloud].match(instance_type))


def at_least_min(
    desired: float | None, least: float | None
) -> tuple[float | None, tuple[str, ...]]:
    """A group's desired size where its min size is above it: the cloud raises the desired
    size to the min (AWS does so on update), so the group runs at least its min whatever a
    desired size, left alone by later deployments, says; and a note saying so."""
    if desired is None or least is None or least <= desired:
        return desired, ()
    return least, (
        f"its min size ({least:g}) is above its desired size ({desired:g}): it runs at least "
        "its min size",
    )


class Reading:
    """One resource's properties and the helpers every reader needs."""

    def __init__(
        self, props: dict[str, Any], provider: dict[str, Any], machines: MachineCatalog
    ) -> None:
        self.props = props
        self.provider = provider
        self.catalog = machines
        self.undetermined: list[str] = []
        self._unknowns = 0  # of those, values only unknown during a preview
        # Of those, the ones about how many it holds, not which machines (``size``).
        self.size_reasons: list[str] = []

    def within(self, props: Any) -> Reading:
        """A reading of part of this resource (a node pool, a variant): its own record of what
        it cannot determine, the same provider and catalog."""
        return Reading(props if isinstance(props, dict) else {}, self.provider, self.catalog)

    def unknown_value(self, what: str) -> None:
        """Record that ``what`` ("instanceType is", "overrides are") is unknown during a
        preview."""
        self.undetermined.append(f"{what} unknown during preview")
        self._unknowns += 1

    def absorb(self, other: Reading) -> None:
        """Take on what a reading of part of this resource could not determine."""
        self.undetermined.extend(other.undetermined)
        self._unknowns += other._unknowns
        self.size_reasons.extend(other.size_reasons)

    @property
    def only_unknown(self) -> bool:
        """Whether all it cannot determine is values a preview does not know yet."""
        return bool(self.undetermined) and self._unknowns == len(self.undetermined)

    def get(self, *path: str | int) -> Any:
        return get_path(self.props, *path)

    def unreadable(self, value: Any, where: str) -> bool:
        """True (and recorded) for a value nothing here can read: unknown in a preview, or a
        secret an export does not decrypt."""
        if is_unknown(value):
            self.unknown_value(f"{where} is")
            return True
        if value == SECRET_PLACEHOLDER:
            self.undetermined.append(f"{where} is a secret, not decrypted offline")
            return True
        if value == INVOKE_PLACEHOLDER:
            # Known in a real preview, but never offline, where the gate runs: not a preview's
            # unknown (which deploying settles) — it blocks, as anything unread does.
            self.undetermined.append(
                f"{where} comes from an invoke, which gpufleet does not run offline "
                "(set it as a plain value or in the stack config)"
            )
            return True
        if value == OFFLINE_UNKNOWN:
            self.undetermined.append(
                f"{where} is not known offline: a stack reference's output (give "
                "--stack-reference NAME=FILE) or typed secret config"
            )
            return True
        return False

    def machine_name(self, cloud: Cloud, value: Any, where: str) -> str | None:
        """The machine type a property names, as the catalog spells it: without surrounding
        whitespace, GCP's URLs (``zones/z/machineTypes/a2-highgpu-1g``) as their last segment,
        AWS and GCP names in lower case. None when absent; None, recorded, when unknown, a
        secret, or not a name at all."""
        if value is None or self.unreadable(value, where):
            return None
        if not isinstance(value, str) or not value.strip():
            self.undetermined.append(f"{where} {shown(value)} is not a machine type")
            return None
        name = value.strip()
        if cloud == "gcp":
            name = name.rsplit("/", 1)[-1]
        return name if cloud == "azure" else name.lower()

    def machine(
        self,
        cloud: Cloud,
        instance_type: Any,
        where: str,
        attached: tuple[str, int] | None = None,
    ) -> Machine | None:
        """The machine for a type property; records why when it cannot be determined."""
        instance_type = self.machine_name(cloud, instance_type, where)
        if instance_type is None:
            return None
        found = self.catalog.machine(cloud, instance_type, attached)
        if found is None and (attached is not None or looks_like_gpu(cloud, instance_type)):
            what = f"{instance_type} with {attached[1]} x {attached[0]}" if attached else None
            self.undetermined.append(
                f"{where} {what or instance_type} is not in the GPU catalog (GPUs unknown)"
            )
        return found

    def count(self, *path: str | int, where: str) -> float | None:
        """A size (instances or capacity units): a whole number from 0 to ``MAX_COUNT``; None,
        recorded, when it is anything else."""
        return self.size(self.get(*path), where, None)

    def size(self, value: Any, where: str, default: float | None) -> float | None:
        """``number`` of a whole size, what it cannot determine recorded as about the size
        alone: capacity launching only machines without GPUs holds none, whatever its size."""
        before = len(self.undetermined)
        found = self.number(value, where, default, whole=True)
        self.size_reasons.extend(self.undetermined[before:])
        return found

    def number(
        self,
        value: Any,
        where: str,
        default: float | None,
        *,
        whole: bool = False,
        positive: bool = False,
        most: float = MAX_COUNT,
    ) -> float | None:
        """A number a property holds (``default`` when absent); None, recorded as undetermined,
        when it is unknown, a secret, or not a finite number in range."""
        if value is None:
            return default
        if self.unreadable(value, where):
            return None
        found = _finite(value)
        if found is None or found < 0 or (positive and found == 0) or found > most:
            limit = f"from {'1' if positive else '0'} to {most:g}"
            self.undetermined.append(f"{where} {shown(value)} is not a number {limit}")
            return None
        if whole and found != int(found):
            self.undetermined.append(f"{where} {shown(value)} is not a whole number")
            return None
        return found

    def at_most(self, size: float | None, what: str, most: float | None, limit: str) -> None:
        """Record a size above the limit it cannot exceed (a desired size above the max)."""
        if size is not None and most is not None and size > most:
            why = f"its {what} {size:g} is above its {limit} {most:g}"
            self.undetermined.append(why)
            self.size_reasons.append(why)

    def single(
        self, cloud: Cloud, kind: str, machine: Machine | None, **fields: Any
    ) -> GpuFootprint | None:
        """The footprint of one machine held while the resource exists (a VM, a notebook):
        on-demand unless ``fields`` say otherwise."""
        return self.footprint(
            cloud=cloud,
            kind=kind,
            is_template=False,
            machines=[machine],
            **{"expected_units": 1.0, "max_units": 1.0, "market": "on_demand", **fields},
        )

    def footprint(self, **fields: Any) -> GpuFootprint | None:
        machines = tuple(m for m in fields.pop("machines", ()) if m is not None)
        if not machines and not self.undetermined and not fields.get("template_properties"):
            return None  # no GPU machine here
        return GpuFootprint(
            machines=machines,
            undetermined=tuple(self.undetermined),
            unknown=self.only_unknown,
            size_reasons=tuple(self.size_reasons),
            **fields,
        )


def _finite(value: Any) -> float | None:
    """A finite float from a number or numeric text; None for anything else (booleans too)."""
    if isinstance(value, bool):
        return None
    try:
        found = float(value) if isinstance(value, int | float | str) else None
    except (ValueError, OverflowError):
        return None
    return found if found is not None and math.isfinite(found) else None


def shown(value: Any) -> str:
    """A property value in a message, short: what the user wrote, not all of it."""
    try:
        text = repr(value)
    except ValueError:  # an int too long to print
        return "(a number too long to show)"
    return text if len(text) <= 40 else text[:37] + "..."


def market(value: Any) -> Market | None:
    """A market option's value (``spot`` or anything else: on-demand); None when unset or
    unknown, so a template or default decides."""
    if is_unknown(value) or value is None:
        return None
    return "spot" if str(value).lower() == "spot" else "on_demand"

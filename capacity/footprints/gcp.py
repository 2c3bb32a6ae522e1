"""GPU footprints of GCP resources: instance templates (machines, no count), VM instances (in a
reservation or not), managed instance groups (target size; machines from their template) and
reservations. Machine types may be names or URLs; GPUs come with accelerator-optimized machine
types or as guest accelerators (``planner.gcp_machines``)."""

from __future__ import annotations

from typing import Any

from gpufleet import resource_types as types
from gpufleet.capacity.footprints.model import GpuFootprint, GroupVersion, Machine
from gpufleet.capacity.footprints.reading import (
    MAX_COUNT,
    Reading,
    Scaler,
    looks_like_gpu,
    reads,
    shown,
    sizes,
)
from gpufleet.capacity.footprints.weekly_use import MAX_CHANGES, Window, cron_windows
from gpufleet.capacity.property_values import as_list, get_path, is_unknown, resource_name
from gpufleet.planner.gcp_machines import GPU_OF_ACCELERATOR, built_in_gpus
from gpufleet.planner.gpus import normalize_gpu_name
from gpufleet.planner.schedules import ScheduleError
from gpufleet.pricing_models import Market
from gpufleet.tag_keys import EXPECTED_MINUTES, expected_minutes, tags_in_description


def _region(r: Reading) -> str | None:
    for key in ("region", "zone"):
        value = r.get(key)
        if isinstance(value, str) and value and not is_unknown(value):
            value = value.rsplit("/", 1)[-1]
            return value if key == "region" else value.rsplit("-", 1)[0]
    value = r.provider.get("region")
    return value if isinstance(value, str) and not is_unknown(value) else None


def _zone(r: Reading) -> str | None:
    zone = r.get("zone")
    if isinstance(zone, str) and zone and not is_unknown(zone):
        return zone.rsplit("/", 1)[-1]
    return None


def _machine(r: Reading, machine_type: Any) -> Machine | None:
    name = r.machine_name("gcp", machine_type, "machineType")
    if name is None:
        return None
    guest = r.get("guestAccelerators")
    if is_unknown(guest):
        r.unknown_value("guestAccelerators are")
        return None
    accelerators = [a for a in as_list(guest) if isinstance(a, dict)]
    if accelerators:
        attached = _attached(r, accelerators)
        if attached is None:
            return None
        gpu, count = attached
        if count == 0:
            return None  # no GPU attached after all
        # The accelerators say what the machine carries, whether or not the catalog prices
        # this pairing (unpriced pairings show up in the budget instead).
        known = r.catalog.machine("gcp", name, (gpu, count))
        return known or Machine("gcp", name, gpu, count)
    if built_in_gpus(name) is None and not looks_like_gpu("gcp", name):
        return None
    return r.machine("gcp", name, "machineType")


def _attached(r: Reading, accelerators: list[dict[str, Any]]) -> tuple[str, int] | None:
    """(GPU, count) of a machine's guest accelerators: entries of one kind add up; None,
    recorded, when they cannot be read or name several kinds."""
    kinds: dict[str, int] = {}
    for index, accelerator in enumerate(accelerators):
        where = f"guestAccelerators[{index}]"
        kind = get_path(accelerator, "type")
        if r.unreadable(kind, f"{where}.type"):
            return None
        if not isinstance(kind, str) or not kind.strip():
            r.undetermined.append(f"{where}.type {shown(kind)} is not an accelerator type")
            return None
        kind = kind.strip().rsplit("/", 1)[-1].lower()
        name = GPU_OF_ACCELERATOR.get(kind) or normalize_gpu_name(kind)
        if name is None:
            r.undetermined.append(f"{where}.type {kind!r} is not a known GPU")
            return None
        count = r.number(
            get_path(accelerator, "count"), f"{where}.count", None, whole=True, most=16
        )
        if count is None:
            if get_path(accelerator, "count") is None:
                r.undetermined.append(f"{where}.count is not set")
            return None
        kinds[name] = kinds.get(name, 0) + int(count)
    if len(kinds) > 1:
        r.undetermined.append(f"guestAccelerators name several GPU kinds: {', '.join(kinds)}")
        return None
    ((gpu, count),) = kinds.items()
    return gpu, count


def _scheduling_market(r: Reading) -> Market:
    model = r.get("scheduling", "provisioningModel")
    preemptible = r.get("scheduling", "preemptible")
    return "spot" if model == "SPOT" or preemptible is True else "on_demand"


_AFFINITY = "reservationAffinity"


def _reservation_fields(r: Reading) -> dict[str, Any]:
    """The market fields of a VM or template: in the reservation it names, if any (not priced
    twice when the stack holds it: ``stack_capacity.resolve_reservation``)."""
    outside = _scheduling_market(r)
    if r.get(_AFFINITY, "type") != "SPECIFIC_RESERVATION":
        return {"market": outside}
    names = as_list(r.get(_AFFINITY, "specificReservation", "values"))
    return {
        "market": "in_reservation",
        "reservation_names": tuple(filter(None, map(resource_name, names))),
        "market_outside_reservation": outside,
        "reservation_properties": (_AFFINITY,),
    }


@reads(*types.GCP_INSTANCE_TEMPLATES)
def instance_template(r: Reading) -> GpuFootprint | None:
    machine = _machine(r, r.get("machineType"))
    return r.footprint(
        cloud="gcp",
        kind="instance template",
        is_template=True,
        machines=[machine],
        region=_region(r),
        **_reservation_fields(r),
    )


_STOPPED = ("TERMINATED", "SUSPENDED")


@reads(types.GCP_INSTANCE)
def instance(r: Reading) -> GpuFootprint | None:
    machine = _machine(r, r.get("machineType"))
    # A stopped VM bills no GPU time until it is started (by a run, or its schedule).
    stopped = r.get("desiredStatus") in _STOPPED
    return r.footprint(
        cloud="gcp",
        kind="VM instance",
        is_template=False,
        machines=[machine],
        expected_units=0.0 if stopped else 1.0,
        max_units=1.0,
        region=_region(r),
        zone=_zone(r),
        **_reservation_fields(r),
    )


@reads(*types.GCP_INSTANCE_GROUP_MANAGERS)
def instance_group_manager(r: Reading) -> GpuFootprint | None:
    size = r.count("targetSize", where="targetSize")
    return r.footprint(
        cloud="gcp",
        kind="managed instance group",
        is_template=False,
        expected_units=size,
        max_units=size,
        template_properties=("versions", "instanceTemplate"),
        region=_region(r),
        zone=_zone(r),
        versions=_versions(r),
    )


def _versions(r: Reading) -> tuple[GroupVersion, ...]:
    """A group's versions when it has several: which template each launches and how many of
    the group's VMs it gets (a fixed number, a percentage, or the rest)."""
    entries = [v for v in as_list(r.get("versions")) if isinstance(v, dict)]
    if len(entries) < 2:
        return ()
    found = []
    for entry in entries:
        template = entry.get("instanceTemplate")
        size = entry.get("targetSize")
        fixed = size.get("fixed") if isinstance(size, dict) else None
        # Numbers cross the engine as floats: 2.0 is a size, 2.5 or a bool is not.
        if (
            isinstance(fixed, bool)
            or not isinstance(fixed, int | float)
            or not 0 <= fixed <= MAX_COUNT
            or not float(fixed).is_integer()
        ):
            fixed = None
        found.append(
            GroupVersion(
                template=template
                if isinstance(template, str) and template and not is_unknown(template)
                else None,
                fixed=None if fixed is None else float(fixed),
                takes_rest=not isinstance(size, dict) or not size,
            )
        )
    return tuple(found)


@reads(types.GCP_RESERVATION)
def reservation(r: Reading) -> GpuFootprint | None:
    properties = r.get("specificReservation", "instanceProperties")
    machine_type = get_path(properties, "machineType")
    # A reservation names its accelerators' fields acceleratorType / acceleratorCount, where
    # instances and templates say type / count.
    accelerators = [
        {"type": a.get("acceleratorType"), "count": a.get("acceleratorCount")}
        for a in as_list(get_path(properties, "guestAccelerators"))
        if isinstance(a, dict)
    ]
    sub = Reading(
        {"guestAccelerators": accelerators} if accelerators else {}, r.provider, r.catalog
    )
    machine = _machine(sub, machine_type)
    r.absorb(sub)
    count = r.count("specificReservation", "count", where="specificReservation.count")
    return r.footprint(
        cloud="gcp",
        kind="reservation",
        is_template=False,
        machines=[machine],
        expected_units=count,
        max_units=count,
        market="reserved",
        region=_region(r),
        zone=_zone(r),
    )


@sizes(*types.GCP_AUTOSCALERS)
def autoscaler(r: Reading) -> Scaler | None:
    policy = ("autoscalingPolicy",)
    least = r.count(*policy, "minReplicas", where="minReplicas")
    most = r.count(*policy, "maxReplicas", where="maxReplicas")
    if least is None and r.get(*policy, "minReplicas") is None:
        least = 0.0
    r.at_most(least, "minReplicas", most, "maxReplicas")
    mode = r.get(*policy, "mode")
    description = r.get("description")
    words = tags_in_description(description) if isinstance(description, str) else {}
    entries = as_list(r.get(*policy, "scalingSchedules"))
    windows, unread = _scaling_schedules(r, entries)
    zones = {
        zone if isinstance(zone := get_path(entry, "timeZone"), str) and zone else "UTC"
        for entry in entries
        if isinstance(entry, dict) and entry.get("disabled") is not True
    }
    return Scaler(
        "target",
        least,
        most,
        active=mode not in ("OFF",),
        undetermined=tuple(r.undetermined),
        declared_minutes=expected_minutes(words.get(EXPECTED_MINUTES)),
        windows=tuple(windows),
        schedule_unread=unread,
        time_zones=frozenset(zones),
    )


def _scaling_schedules(r: Reading, entries: list[Any]) -> tuple[list[Window], str | None]:
    """The windows an autoscaler's scaling schedules hold (disabled ones left out), or why
    they cannot be read."""
    windows: list[Window] = []
    for index, entry in enumerate(entries):
        where = f"scalingSchedules[{index}]"
        sub = Reading(entry if isinstance(entry, dict) else {}, r.provider, r.catalog)
        if sub.get("disabled") is True:
            continue
        cron = sub.get("schedule")
        seconds = sub.number(sub.get("durationSec"), f"{where}.durationSec", None, whole=True)
        size = sub.number(
            sub.get("minRequiredReplicas"), f"{where}.minRequiredReplicas", None, whole=True
        )
        if is_unknown(cron):
            return [], f"{where}.schedule is unknown during preview"
        if sub.undetermined or not isinstance(cron, str) or seconds is None or size is None:
            return [], "; ".join(sub.undetermined) or f"{where} is not a whole schedule"
        try:
            windows += cron_windows(cron, seconds, size)
        except ScheduleError as exc:
            return [], f"{where}: {exc}"
        if len(windows) > MAX_CHANGES:
            return [], f"more than {MAX_CHANGES:,} scheduled windows a week"
    return windows, None

"""GPU footprints of Azure resources: VM scale sets (sku capacity; Spot or Low priority), Azure
ML compute clusters (min and max nodes; low-priority VMs) and capacity reservations."""

from __future__ import annotations

from typing import Any

from gpufleet import resource_types as types
from gpufleet.capacity.footprints.model import GpuFootprint
from gpufleet.capacity.footprints.reading import Reading, Scaler, reads, sizes
from gpufleet.capacity.footprints.weekly_use import MAX_CHANGES, SetPoint
from gpufleet.capacity.property_values import as_list, get_path, is_unknown, resource_name
from gpufleet.planner.schedules import MINUTES_PER_DAY
from gpufleet.pricing_models import LOW_PRIORITY, Market


def _region(r: Reading) -> str | None:
    value = r.get("location")
    return value.lower() if isinstance(value, str) and not is_unknown(value) else None


@reads(types.AZURE_SCALE_SET)
def scale_set(r: Reading) -> GpuFootprint | None:
    machine = r.machine("azure", r.get("sku", "name"), "sku.name")
    priority = r.get(_PROFILE, "priority")
    capacity = r.count("sku", "capacity", where="sku.capacity")
    bought: Market = "spot" if priority in ("Spot", "Low") else "on_demand"
    group = r.get(_PROFILE, "capacityReservation", "capacityReservationGroup", "id")
    reserving: dict[str, Any] = {"market": bought}
    if group is not None:
        # In a capacity reservation group, whose reservations pay for it when the stack holds
        # them (``stack_capacity.resolve_reservation``).
        reserving = {
            "market": "in_reservation",
            "reservation_names": tuple(filter(None, [resource_name(group)])),
            "market_outside_reservation": bought,
            "reservation_properties": (_PROFILE,),
        }
    return r.footprint(
        cloud="azure",
        kind="VM scale set",
        is_template=False,
        machines=[machine],
        expected_units=capacity,
        max_units=capacity,
        region=_region(r),
        **reserving,
    )


_PROFILE = "virtualMachineProfile"
_GROUP_NAME = "capacityReservationGroupName"


@reads(types.AZURE_ML_COMPUTE)
def ml_compute(r: Reading) -> GpuFootprint | None:
    inner = r.get("properties", "properties")
    if r.get("properties", "computeType") not in ("AmlCompute", None):
        return None
    machine = r.machine("azure", get_path(inner, "vmSize"), "vmSize")
    scale = ("properties", "properties", "scaleSettings")
    most = r.count(*scale, "maxNodeCount", where="maxNodeCount")
    least = r.count(*scale, "minNodeCount", where="minNodeCount")
    if least is None and r.get(*scale, "minNodeCount") is None:
        least = 0.0  # Azure's default: the cluster scales to zero when idle
    r.at_most(least, "minNodeCount", most, "maxNodeCount")

    return r.footprint(
        cloud="azure",
        kind="Azure ML compute cluster",
        is_template=False,
        machines=[machine],
        expected_units=least,
        max_units=most,
        market="spot" if get_path(inner, "vmPriority") == "LowPriority" else "on_demand",
        spot_name=LOW_PRIORITY,
        region=_region(r),
    )


@reads(types.AZURE_CAPACITY_RESERVATION)
def capacity_reservation(r: Reading) -> GpuFootprint | None:
    machine = r.machine("azure", r.get("sku", "name"), "sku.name")
    capacity = r.count("sku", "capacity", where="sku.capacity")
    group = resource_name(r.get(_GROUP_NAME))
    return r.footprint(
        cloud="azure",
        kind="capacity reservation",
        is_template=False,
        machines=[machine],
        expected_units=capacity,
        max_units=capacity,
        market="reserved",
        region=_region(r),
        # VMs name the group, not the reservation: the group links them.
        reservation_names=(group,) if group else (),
        reservation_properties=(_GROUP_NAME,),
    )


@sizes(types.AZURE_AUTOSCALE_SETTING)
def autoscale_setting(r: Reading) -> Scaler | None:
    """Its profiles' capacities bound the scale set it targets: the least of their minimums
    (a schedule's idle profile, or a default's floor), the most of their maximums. Weekly
    recurring profiles are its schedule: each sets its default capacity when it starts, until
    the next one starts."""
    least: list[float] = []
    most: list[float] = []
    profiles = as_list(r.get("profiles"))
    for index, profile in enumerate(profiles):
        capacity = get_path(profile, "capacity")
        found = [
            r.number(get_path(capacity, key), f"profiles[{index}].capacity.{key}", None, whole=True)
            for key in ("minimum", "maximum")
        ]
        if found[0] is not None:
            least.append(found[0])
        if found[1] is not None:
            most.append(found[1])
    points, unread = _recurring_profiles(r, profiles)
    zones = {
        zone if isinstance(zone := get_path(p, "recurrence", "schedule", "timeZone"), str) else ""
        for p in profiles
        if get_path(p, "recurrence") is not None
    }
    return Scaler(
        "targetResourceUri",
        min(least, default=0.0),
        max(most, default=None),
        # Azure's default is disabled.
        active=r.get("enabled") is True,
        undetermined=tuple(r.undetermined),
        set_points=tuple(points),
        schedule_unread=unread,
        time_zones=frozenset(zones),
    )


# Azure's day names in a recurrence, as minutes of the week they start at (Monday first).
_DAY_STARTS = {
    day: index * MINUTES_PER_DAY
    for index, day in enumerate(
        ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    )
}


def _recurring_profiles(r: Reading, profiles: list[Any]) -> tuple[list[SetPoint], str | None]:
    """The set points of the weekly recurring profiles (their default capacity at each start),
    or why they cannot be read. Profiles without a recurrence (the default, a fixed date) set
    no point of the week."""
    points: list[SetPoint] = []
    for index, profile in enumerate(profiles):
        where = f"profiles[{index}]"
        sub = Reading(profile if isinstance(profile, dict) else {}, r.provider, r.catalog)
        recurrence = sub.get("recurrence")
        if recurrence is None:
            continue
        if sub.get("recurrence", "frequency") != "Week":
            return [], f"{where}.recurrence is not weekly"
        schedule = ("recurrence", "schedule")
        days, hours, minutes = (
            as_list(sub.get(*schedule, key)) for key in ("days", "hours", "minutes")
        )
        # Azure keeps the count within the profile's minimum and maximum; its default is
        # only where it starts when it has no metric to go by.
        size, least, most = (
            sub.number(sub.get("capacity", key), f"{where}.capacity.{key}", None, whole=True)
            for key in ("default", "minimum", "maximum")
        )
        if size is not None and least is not None and most is not None:
            size = min(max(size, least), most)
        clock = [
            sub.number(value, f"{where}.recurrence.schedule", None, whole=True, most=limit)
            for values, limit in ((hours, 23), (minutes, 59))
            for value in values
        ]
        unknown_day = [d for d in days if not isinstance(d, str) or d not in _DAY_STARTS]
        if sub.undetermined or size is None or None in clock or unknown_day or not days:
            reason = "; ".join(sub.undetermined) or f"{where}.recurrence is not a weekly time"
            return [], reason
        points += [
            (_DAY_STARTS[day] + hour * 60 + minute, size)
            for day in set(days)
            for hour in {int(h) for h in hours}
            for minute in {int(m) for m in minutes}
        ]
        if len(points) > MAX_CHANGES:
            return [], f"more than {MAX_CHANGES:,} profile starts a week"
    return points, None

"""GPU footprints of Azure resources: VM scale sets (sku capacity; Spot or Low priority), Azure
ML compute clusters (min and max nodes; low-priority VMs) and compute instances, capacity
reservations, virtual machines, AKS agent pools and managed clusters (a part per pool), Batch
pools (dedicated and Spot nodes), Azure ML online deployments and Synapse GPU Spark pools; what
autoscale settings and standby pools make of a scale set's size. Container Apps is
``azure_container_apps``."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import isodate

from gpufleet import resource_types as types
from gpufleet.capacity.footprints.model import GpuFootprint, Machine
from gpufleet.capacity.footprints.reading import Reading, Scaler, reads, shown, sizes
from gpufleet.capacity.footprints.weekly_use import MAX_CHANGES, SetPoint
from gpufleet.capacity.property_values import (
    as_list,
    camel_keys,
    get_path,
    is_unknown,
    resource_name,
)
from gpufleet.planner.schedules import MINUTES_PER_DAY
from gpufleet.pricing_models import LOW_PRIORITY, Market


def _region(r: Reading) -> str | None:
    value = r.get("location")
    return value.lower() if isinstance(value, str) and not is_unknown(value) else None


@reads(types.AZURE_SCALE_SET)
def scale_set(r: Reading) -> GpuFootprint | None:
    """A VM scale set: its capacity of its SKU (or instance mix sizes), spot or regular, in the
    capacity reservation group it names."""
    sizes = [v for v in as_list(r.get("skuProfile", "vmSizes")) if isinstance(v, dict)]
    if sizes:
        # Instance mix (sku.name "Mix"): its VMs are any of the listed sizes.
        machines = [
            r.machine("azure", size.get("name"), f"skuProfile.vmSizes[{index}].name")
            for index, size in enumerate(sizes)
        ]
    else:
        machines = [r.machine("azure", r.get("sku", "name"), "sku.name")]
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
        machines=machines,
        expected_units=capacity,
        max_units=capacity,
        region=_region(r),
        **reserving,
    )


_PROFILE = "virtualMachineProfile"
_GROUP_NAME = "capacityReservationGroupName"


@reads(types.AZURE_ML_COMPUTE)
def ml_compute(r: Reading) -> GpuFootprint | None:
    """An Azure ML compute: a cluster's min / max nodes of its VM size (low-priority or dedicated),
    or a compute instance's one machine."""
    r = r.within(camel_keys(r.props))
    inner = r.get("properties", "properties")
    compute_type = r.get("properties", "computeType")
    if compute_type == "ComputeInstance":
        return _compute_instance(r, inner)
    if compute_type not in ("AmlCompute", None):
        return None
    machine = r.machine("azure", get_path(inner, "vmSize"), "vmSize")
    scale = ("properties", "properties", "scaleSettings")
    most = r.count(*scale, "maxNodeCount", where="maxNodeCount")
    least = r.count(*scale, "minNodeCount", where="minNodeCount")
    if least is None and r.get(*scale, "minNodeCount") is None:
        least = 0.0  # Azure's default: the cluster scales to zero when idle
    r.at_most(least, "minNodeCount", most, "maxNodeCount")
    idle = _idle_hours(r, r.get(*scale, "nodeIdleTimeBeforeScaleDown"))
    return r.footprint(
        cloud="azure",
        kind="Azure ML compute cluster",
        is_template=False,
        machines=[machine],
        expected_units=least,
        max_units=most,
        idle_hours_per_run=idle,
        market="spot" if get_path(inner, "vmPriority") == "LowPriority" else "on_demand",
        spot_name=LOW_PRIORITY,
        region=_region(r),
    )


def _compute_instance(r: Reading, inner: Any) -> GpuFootprint | None:
    """An Azure ML compute instance: one VM, a workstation (its idle shutdown, if any, is
    not read: it is priced running)."""
    machine = r.machine("azure", get_path(inner, "vmSize"), "vmSize")
    return r.single("azure", "Azure ML compute instance", machine, region=_region(r))


@reads(types.AZURE_CAPACITY_RESERVATION)
def capacity_reservation(r: Reading) -> GpuFootprint | None:
    """An Azure capacity reservation: its capacity of its VM size, billed whether used or not."""
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


# Azure ML's idle time before a cluster scales down when the cluster does not say.
_AML_DEFAULT_IDLE = "PT120S"


def _idle_hours(r: Reading, value: Any) -> float | None:
    """An ML cluster's idle time before it scales down (ISO 8601), in hours; None, recorded,
    when it cannot be read (a month or a year is no fixed time)."""
    where = "nodeIdleTimeBeforeScaleDown"
    if value is None:
        value = _AML_DEFAULT_IDLE
    if r.unreadable(value, where):
        return None
    try:
        found = isodate.parse_duration(value) if isinstance(value, str) else None
    except (isodate.ISO8601Error, ValueError, OverflowError):
        found = None
    if not isinstance(found, timedelta) or found < timedelta(0):
        r.undetermined.append(f"{where} {shown(value)} is not a duration in days or less")
        r.size_reasons.append(r.undetermined[-1])
        return None
    return found.total_seconds() / 3600


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
    directions = {
        get_path(rule, "scaleAction", "direction")
        for profile in profiles
        for rule in as_list(get_path(profile, "rules"))
    }
    odd = directions - {"Increase", "Decrease"}
    direction_unread = (
        f"a rule's scaleAction.direction is {', '.join(sorted(map(shown, odd)))}, not Increase "
        "or Decrease"
        if odd
        else None
    )
    return Scaler(
        "targetResourceUri",
        min(least, default=0.0),
        max(most, default=None),
        # Azure's default is disabled.
        active=r.get("enabled") is True,
        scales_out="Increase" in directions or direction_unread is not None,
        # Only a rule takes a count down: a profile's start leaves a count within its bounds
        # as it is (its default is where it starts without metrics).
        scales_in="Decrease" in directions,
        direction_unread=direction_unread,
        load_scaling="Increase" in directions,
        sets_size=any(get_path(p, "recurrence") is not None for p in profiles),
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


def _priority(value: Any) -> Market:
    return "spot" if value in ("Spot", "Low", "LowPriority") else "on_demand"


@reads(types.AZURE_VIRTUAL_MACHINE)
def virtual_machine(r: Reading) -> GpuFootprint | None:
    """An Azure VM: one machine of its size, spot or regular."""
    machine = r.machine("azure", r.get("hardwareProfile", "vmSize"), "hardwareProfile.vmSize")
    return r.single(
        "azure", "virtual machine", machine, market=_priority(r.get("priority")), region=_region(r)
    )


# AKS's default node size when a pool names none: a CPU machine.
AKS_DEFAULT_VM_SIZE = "Standard_DS2_v2"


def aks_pool(r: Reading, pool: Any, part: str | None) -> GpuFootprint | None:
    """One AKS agent pool: its VM size, its node count, or its autoscaler's max."""
    p = r.within(pool)
    machine = p.machine("azure", p.get("vmSize") or AKS_DEFAULT_VM_SIZE, "vmSize")
    count = p.count("count", where="count")
    if count is None and p.get("count") is None:
        count = 1.0  # AKS's default
    scales = p.get("enableAutoScaling") is True
    least, most = count, count
    if scales:
        least = p.count("minCount", where="minCount")
        most = p.count("maxCount", where="maxCount")
        if p.get("maxCount") is None:
            p.undetermined.append("its autoscaler sets no maxCount")
        p.at_most(least, "minCount", most, "maxCount")
    found = p.footprint(
        cloud="azure",
        kind="AKS node pool",
        is_template=False,
        machines=[machine],
        expected_units=least,
        max_units=most,
        scales_itself=scales,
        market=_priority(p.get("scaleSetPriority")),
        region=_region(r),
        part=part,
    )
    return found


def aks_pools(r: Reading, pool: Any, part: str | None) -> list[GpuFootprint]:
    """An AKS agent pool's footprints: one, or for a pool of virtual machines (type
    ``VirtualMachines``) that lists its sizes, one per size, of the count it gives."""
    p = r.within(pool)
    manual = p.get("virtualMachinesProfile", "scale", "manual")
    if is_unknown(manual):
        p.unknown_value("virtualMachinesProfile.scale.manual is")
        unread = p.footprint(cloud="azure", kind="AKS node pool", is_template=False, part=part)
        return [unread] if unread is not None else []
    entries = [e for e in as_list(manual) if isinstance(e, dict)]
    if not entries:
        found = aks_pool(r, pool, part)
        return [found] if found is not None else []
    parts = []
    for index, entry in enumerate(entries):
        size = entry.get("size")
        label = size if isinstance(size, str) and size else f"manual[{index}]"
        name = f"{part}/{label}" if part else label
        # A size's count is that many of its VMs, fixed (AKS does not autoscale them).
        one = {
            **(pool if isinstance(pool, dict) else {}),
            "vmSize": size,
            "count": entry.get("count"),
        }
        one.pop("enableAutoScaling", None)
        found = aks_pool(r, one, name)
        if found is not None:
            parts.append(found)
    return parts


@reads(types.AKS_AGENT_POOL)
def aks_agent_pool(r: Reading) -> GpuFootprint | tuple[GpuFootprint, ...] | None:
    """An AKS agent pool: its count, or its autoscaler's min / max, of its VM size (a part per size
    of a VirtualMachines pool)."""
    parts = aks_pools(r, r.props, None)
    return parts[0] if len(parts) == 1 and parts[0].part is None else tuple(parts) or None


@reads(types.AKS_MANAGED_CLUSTER)
def aks_managed_cluster(r: Reading) -> tuple[GpuFootprint, ...] | None:
    """An AKS cluster: each agent pool profile as a part, read as an agent pool."""
    profiles = r.get("agentPoolProfiles")
    if is_unknown(profiles):
        r.unknown_value("agentPoolProfiles are")
        unread = r.footprint(cloud="azure", kind="AKS cluster", is_template=False)
        return (unread,) if unread is not None else None
    parts = []
    for index, profile in enumerate(as_list(profiles)):
        name = get_path(profile, "name")
        parts += aks_pools(
            r, profile, name if isinstance(name, str) and name else f"agentPoolProfiles[{index}]"
        )
    return tuple(parts) or None


@reads(types.AZURE_BATCH_POOL)
def batch_pool(r: Reading) -> GpuFootprint | None:
    """An Azure Batch pool: dedicated and Spot (low-priority) nodes of one VM size, at the
    fixed scale's targets; an autoscale formula's sizes are not read."""
    machine = r.machine("azure", r.get("vmSize"), "vmSize")
    fixed = ("scaleSettings", "fixedScale")
    dedicated = r.count(*fixed, "targetDedicatedNodes", where="targetDedicatedNodes")
    low = r.count(*fixed, "targetLowPriorityNodes", where="targetLowPriorityNodes")
    total: float | None = None
    if r.get("scaleSettings", "autoScale") is not None:
        r.undetermined.append("its size comes from an autoscale formula, which is not read")
    elif dedicated is not None or low is not None:
        total = (dedicated or 0.0) + (low or 0.0)
    else:
        total = 0.0  # Batch's default: no nodes
    bought: Market = "on_demand"
    base = None
    if total and low:
        bought, base = ("spot", None) if not dedicated else ("mixed", dedicated)
    return r.footprint(
        cloud="azure",
        kind="Batch pool",
        is_template=False,
        machines=[machine],
        expected_units=total,
        max_units=total,
        market=bought,
        on_demand_base=base,
        on_demand_percent=0.0 if base is not None else None,
        spot_name=LOW_PRIORITY,
        region=_region(r),
    )


@reads(types.AZURE_ML_ONLINE_DEPLOYMENT)
def ml_online_deployment(r: Reading) -> GpuFootprint | None:
    """An Azure ML managed online deployment: instances of its type, its sku's capacity (or
    its scale settings' instance count), up to its target-utilization scaling's max."""
    r = r.within(camel_keys(r.props))
    inner = ("properties",)
    machine = r.machine("azure", r.get(*inner, "instanceType"), "instanceType")
    scale = (*inner, "scaleSettings")
    count = r.count("sku", "capacity", where="sku.capacity")
    if count is None and r.get("sku", "capacity") is None:
        count = 1.0
    least, most = count, count
    scales = str(r.get(*scale, "scaleType")) == "TargetUtilization"
    if scales:
        least = r.number(r.get(*scale, "minInstances"), "minInstances", 1.0, whole=True)
        most = r.number(r.get(*scale, "maxInstances"), "maxInstances", 1.0, whole=True)
        r.at_most(least, "minInstances", most, "maxInstances")
    return r.footprint(
        cloud="azure",
        kind="Azure ML online deployment",
        is_template=False,
        machines=[machine],
        expected_units=least,
        max_units=most,
        scales_itself=scales,
        market="on_demand",
        region=_region(r),
    )


# GPUs per node of a Synapse Spark pool of the HardwareAcceleratedGPU family, by node size:
# Microsoft's Synapse GPU documentation gives Large as "16 vCPU / 110 GB / 1 GPU"
# (https://learn.microsoft.com/azure/synapse-analytics/quickstart-create-apache-gpu-pool-portal)
# and runs one executor per GPU, four per XLarge node ("4 * Number of nodes in pool",
# https://learn.microsoft.com/azure/synapse-analytics/spark/apache-spark-rapids-gpu). It does
# not name the GPU model.
SYNAPSE_GPUS_PER_NODE = {"large": 1, "xlarge": 4}
SYNAPSE_GPU_FAMILY = "HardwareAcceleratedGPU"
SYNAPSE_GPU = "NVIDIA GPU (model not documented)"


@reads(types.SYNAPSE_SPARK_POOL)
def synapse_spark_pool(r: Reading) -> GpuFootprint | None:
    """A Synapse Spark pool of GPU nodes: nothing runs until a session or job starts a Spark
    instance on it, which holds up to its node count (or its autoscale's max). Synapse bills
    its own vCore rates: sized, unpriced. A pool of another node family holds no GPUs."""
    family = r.get("nodeSizeFamily")
    if r.unreadable(family, "nodeSizeFamily"):
        return r.footprint(cloud="azure", kind="Synapse Spark pool", is_template=False)
    if str(family) != SYNAPSE_GPU_FAMILY:
        return None
    size = r.get("nodeSize")
    machine = None
    if not r.unreadable(size, "nodeSize"):
        gpus = SYNAPSE_GPUS_PER_NODE.get(str(size).lower())
        if gpus is None:
            r.undetermined.append(
                f"its nodeSize {size!r} is not a GPU node size Synapse documents (Large, XLarge)"
            )
        else:
            machine = Machine("azure", f"Synapse {size} GPU node", SYNAPSE_GPU, gpus)
    if r.get("autoScale", "enabled") is True:
        most = r.count("autoScale", "maxNodeCount", where="autoScale.maxNodeCount")
        if most is None and r.get("autoScale", "maxNodeCount") is None:
            r.undetermined.append("its autoscale sets no maxNodeCount")
    else:
        most = r.count("nodeCount", where="nodeCount")
        if most is None and r.get("nodeCount") is None:
            r.undetermined.append("its nodeCount is not set")
    return r.footprint(
        cloud="azure",
        kind="Synapse Spark pool",
        is_template=False,
        machines=[machine],
        expected_units=0.0,
        max_units=most,
        scales_itself=True,
        market="on_demand",
        region=_region(r),
        notes=("Synapse bills GPU pools at its own vCore rates, which gpufleet's catalog lacks",),
    )


_RUNNING = "running"


@sizes(types.AZURE_STANDBY_VM_POOL)
def standby_vm_pool(r: Reading) -> Scaler | None:
    """A standby pool keeps up to ``maxReadyCapacity`` VMs of the scale set it is attached to
    ready beside its capacity; running ones hold their GPUs (deallocated or hibernated ones
    bill no GPU time until the scale set takes them in, when its own capacity counts them)."""
    state = r.get("virtualMachineState")
    ready = r.number(
        r.get("elasticityProfile", "maxReadyCapacity"), "maxReadyCapacity", None, whole=True
    )
    if ready is None and r.get("elasticityProfile", "maxReadyCapacity") is None:
        r.undetermined.append("its maxReadyCapacity is not set")
    running = not r.unreadable(state, "virtualMachineState") and str(state).lower() == _RUNNING
    return Scaler(
        "attachedVirtualMachineScaleSetId",
        None,
        None,
        active=False,
        undetermined=tuple(r.undetermined),
        bounds=False,
        must_link=True,
        adds=(ready or 0.0) if running else 0.0,
    )

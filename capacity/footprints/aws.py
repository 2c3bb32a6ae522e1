"""GPU footprints of AWS resources: launch templates (machines, no count), EC2 instances, Auto
Scaling groups (desired / min / max size; mixed-instance overrides with their weights; on-demand
base and percentage; a Running warm pool's prepared instances), EC2 Fleets and Spot Fleet
requests (target capacity, weighted), capacity reservations and Capacity Blocks, SageMaker
training jobs (billed per run), and gpufleet's SageMaker job template, whose runs start outside
the stack; launch configurations, spot instance requests, EKS node groups, Batch compute
environments (vCPUs, instance types or families), SageMaker notebooks, Studio apps and endpoint
configurations (a part per variant). Groups that choose instances by attributes
(``instanceRequirements``) may launch every catalog machine that meets them. Other AWS services
have modules of their own (``aws_*``)."""

from __future__ import annotations

import fnmatch
import math
from typing import Any

from gpufleet import resource_types as types
from gpufleet.capacity.footprints.model import MEMORY_MIB_UNITS, VCPU_UNITS, GpuFootprint, Machine
from gpufleet.capacity.footprints.reading import (
    Reading,
    Scaler,
    at_least_min,
    looks_like_gpu,
    market,
    reads,
    shown,
    sizes,
)
from gpufleet.capacity.footprints.weekly_use import (
    SetPoint,
    cron_set_points,
    in_utc,
    utc_offset_minutes,
)
from gpufleet.capacity.property_values import as_list, get_path, is_unknown
from gpufleet.planner.schedules import ScheduleError
from gpufleet.pricing_models import HOURS_PER_MONTH, Market

# SageMaker's own default for MaxRuntimeInSeconds (one day), and its limit (28 days).
SAGEMAKER_DEFAULT_RUNTIME_SECONDS = 86400.0
SAGEMAKER_MAX_RUNTIME_SECONDS = 28 * 86400.0
_CAPACITY_UNITS = {"vcpu": VCPU_UNITS, "memory-mib": MEMORY_MIB_UNITS}


def _region(r: Reading) -> str | None:
    region = r.get("region")
    if isinstance(region, str) and not is_unknown(region):
        return region
    zone = r.get("availabilityZone")
    if isinstance(zone, str) and not is_unknown(zone) and zone[-1:].isalpha():
        return zone[:-1]
    region = r.provider.get("region")
    return region if isinstance(region, str) and not is_unknown(region) else None


def _zone(r: Reading) -> str | None:
    zone = r.get("availabilityZone")
    return zone if isinstance(zone, str) and not is_unknown(zone) else None


def _subnets(value: Any) -> tuple[str, ...]:
    """The subnet ids a group or instance names (unknown ones left out)."""
    return tuple(s for s in as_list(value) if isinstance(s, str) and s and not is_unknown(s))


def _in_one_subnet(value: Any) -> bool:
    """Whether the subnets setting names exactly one subnet (known or not): one zone."""
    listed = as_list(value)
    return len(listed) == 1 and not isinstance(listed[0], list | dict)


def _unit(value: Any) -> str:
    return _CAPACITY_UNITS.get(str(value).lower(), "units") if isinstance(value, str) else "units"


# AWS's range for weightedCapacity.
MAX_WEIGHT = 999.0


def _weighted(
    r: Reading, entries: list[Any], where: str
) -> tuple[list[Machine | None], tuple[float, ...]]:
    """Machines of launch-template overrides or launch specifications, and their weights
    (``weightedCapacity``; AWS requires it on all of them or none)."""
    machines: list[Machine | None] = []
    weights: list[float | None] = []
    given = 0
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        requirements = get_path(entry, "instanceRequirements")
        if get_path(entry, "instanceType") is None and requirements is not None:
            found = required_machines(r, requirements, "instanceRequirements")
        else:
            found = [r.machine("aws", get_path(entry, "instanceType"), where)]
        raw = get_path(entry, "weightedCapacity")
        given += raw is not None
        weight = r.number(raw, "weightedCapacity", None, positive=True, most=MAX_WEIGHT)
        for machine in found:
            if machine is not None:
                machines.append(machine)
                weights.append(weight)
    if given and given != len([e for e in entries if isinstance(e, dict)]):
        r.undetermined.append("weightedCapacity is set on some overrides, not all")
        return machines, ()
    if not given or any(w is None for w in weights):
        return machines, ()
    return machines, tuple(w for w in weights if w is not None)


_TARGETING = "capacityReservationSpecification"


def _reservation_fields(r: Reading, bought: Market | None) -> dict[str, Any]:
    """The market fields of an instance or launch template: in the capacity reservation (or
    reservation group) it targets, if any, which the stack may hold and pay for
    (``stack_capacity.resolve_reservation``)."""
    target = r.get(_TARGETING, "capacityReservationTarget")
    named = [
        get_path(target, key)
        for key in ("capacityReservationId", "capacityReservationResourceGroupArn")
    ]
    if not any(value is not None for value in named):
        return {"market": bought}
    return {
        "market": "in_reservation",
        "reservation_names": tuple(v for v in named if isinstance(v, str) and not is_unknown(v)),
        "market_outside_reservation": bought or "on_demand",
        "reservation_properties": (_TARGETING,),
    }


def _bounds(r: Reading, value: Any, where: str) -> tuple[float, float]:
    """A ``{min, max}`` range of instance requirements; absent ends are open."""
    least = r.number(get_path(value, "min"), f"{where}.min", 0.0) or 0.0
    most = r.number(get_path(value, "max"), f"{where}.max", math.inf, most=math.inf)
    return least, math.inf if most is None else most


def required_machines(r: Reading, requirements: Any, where: str) -> list[Machine]:
    """The catalog's GPU machines that attribute-based instance requirements allow: AWS
    counts instances with accelerators in unless ``acceleratorCount.max`` is 0 or
    ``acceleratorTypes`` leaves GPUs out; vCPUs, memory, accelerator count and names, and
    allowed / excluded types narrow the choice. A GPU machine the catalog does not know is
    not among them (attribute-based groups are read against the catalog)."""
    if r.unreadable(requirements, where) or not isinstance(requirements, dict):
        return []
    for key in (
        "acceleratorCount",
        "acceleratorTypes",
        "acceleratorNames",
        "vcpuCount",
        "memoryMib",
        "allowedInstanceTypes",
        "excludedInstanceTypes",
    ):
        if r.unreadable(requirements.get(key), f"{where}.{key}"):
            return []
    gpus = _bounds(r, requirements.get("acceleratorCount"), f"{where}.acceleratorCount")
    if gpus[1] == 0:
        return []
    kinds = [str(k).lower() for k in as_list(requirements.get("acceleratorTypes"))]
    if kinds and "gpu" not in kinds and "inference" not in kinds:
        return []
    names = [str(n).lower().replace("-", "") for n in as_list(requirements.get("acceleratorNames"))]
    vcpus = _bounds(r, requirements.get("vcpuCount"), f"{where}.vcpuCount")
    memory = _bounds(r, requirements.get("memoryMib"), f"{where}.memoryMib")
    allowed = [str(t).lower() for t in as_list(requirements.get("allowedInstanceTypes"))]
    excluded = [str(t).lower() for t in as_list(requirements.get("excludedInstanceTypes"))]
    found = []
    for machine in r.catalog.machines_of("aws"):
        name = machine.instance_type
        gpu = machine.gpu_name.lower().replace("-", "")
        if (
            gpus[0] <= machine.gpus <= gpus[1]
            and vcpus[0] <= machine.vcpus <= vcpus[1]
            and memory[0] <= machine.memory_gib * 1024 <= memory[1]
            and (not names or any(gpu.startswith(n) for n in names))
            and (not allowed or any(fnmatch.fnmatchcase(name, p) for p in allowed))
            and not any(fnmatch.fnmatchcase(name, p) for p in excluded)
        ):
            found.append(machine)
    return found


def _template_machines(r: Reading) -> list[Machine | None]:
    requirements = r.get("instanceRequirements")
    if r.get("instanceType") is None and requirements is not None:
        return list(required_machines(r, requirements, "instanceRequirements"))
    return [r.machine("aws", r.get("instanceType"), "instanceType")]


@reads(types.AWS_LAUNCH_TEMPLATE)
def launch_template(r: Reading) -> GpuFootprint | None:
    """A launch template: the machine it names (or every catalog machine its instanceRequirements
    allow), its market; no count."""
    return r.footprint(
        cloud="aws",
        kind="launch template",
        is_template=True,
        machines=_template_machines(r),
        region=_region(r),
        **_reservation_fields(r, market(r.get("instanceMarketOptions", "marketType"))),
    )


@reads(types.AWS_INSTANCE)
def instance(r: Reading) -> GpuFootprint | None:
    """An EC2 instance: one machine, spot when its market options say so, or in the reservation it
    targets."""
    return _instance(r, "EC2 instance", market(r.get("instanceMarketOptions", "marketType")))


@reads(types.AWS_SPOT_INSTANCE_REQUEST)
def spot_instance_request(r: Reading) -> GpuFootprint | None:
    """An EC2 spot instance request: one spot machine."""
    return _instance(r, "EC2 spot instance request", "spot")


def _instance(r: Reading, kind: str, bought: Market | None) -> GpuFootprint | None:
    """One instance, of its own type or its launch template's (whose market decides unless
    the instance sets one)."""
    machine = r.machine("aws", r.get("instanceType"), "instanceType")
    from_template = r.get("instanceType") is None and r.get("launchTemplate") is not None
    return r.footprint(
        cloud="aws",
        kind=kind,
        is_template=False,
        machines=[machine],
        expected_units=1.0,
        max_units=1.0,
        template_properties=("launchTemplate",) if from_template else (),
        region=_region(r),
        zone=_zone(r),
        one_zone=True,
        subnets=_subnets(r.get("subnetId")),
        **_reservation_fields(r, bought or (None if from_template else "on_demand")),
    )


@reads(types.AWS_AUTOSCALING_GROUP)
def autoscaling_group(r: Reading) -> GpuFootprint | None:
    """An Auto Scaling group: desired / min / max size of its template's machines or its mixed-
    instance overrides (weights, on-demand base and percentage), a Running warm pool's prepared
    instances on top."""
    mixed = r.get("mixedInstancesPolicy")
    overrides = as_list(get_path(mixed, "launchTemplate", "overrides")) if mixed else []
    if any(is_unknown(o) for o in overrides):
        r.unknown_value("mixed-instance overrides are")
    machines, weights = _weighted(r, overrides, "mixed-instance override instanceType")
    if overrides and not machines and not r.undetermined:
        return None  # its overrides choose the machines, and none is a GPU machine
    most = r.count("maxSize", where="maxSize")
    # Desired capacity, else the min size (what AWS starts from), else AWS's default of 0.
    desired = r.count("desiredCapacity", where="desiredCapacity")
    least = r.count("minSize", where="minSize")
    r.at_most(least, "min size", most, "max size")
    if desired is None and r.get("desiredCapacity") is None:
        desired = 0.0 if least is None and r.get("minSize") is None else least
    else:
        r.at_most(desired, "desired size", most, "max size")
    desired, raised = at_least_min(desired, least)
    bought, base, percent = None, None, None
    if mixed:
        distribution = get_path(mixed, "instancesDistribution")
        base = r.number(
            get_path(distribution, "onDemandBaseCapacity"), "onDemandBaseCapacity", 0.0, whole=True
        )
        percent = r.number(
            get_path(distribution, "onDemandPercentageAboveBaseCapacity"),
            "onDemandPercentageAboveBaseCapacity",
            100.0,
            most=100.0,
        )
        if most is not None and base is not None and percent is not None:
            on_demand = min(base, most) + max(most - base, 0.0) * percent / 100.0
            bought = "spot" if on_demand == 0 else "on_demand" if on_demand == most else "mixed"
    notes: tuple[str, ...] = raised
    if r.get("warmPool") is not None:
        desired, most, pool = _warm_pool(r, desired, most, mixed is not None)
        notes = (*notes, *pool)
    held, schedules_off = _kept_in(r)
    return r.footprint(
        cloud="aws",
        kind="Auto Scaling group",
        is_template=False,
        machines=machines,
        weights=weights,
        capacity_unit=_unit(r.get("desiredCapacityType")),
        expected_units=desired,
        min_units=least,
        max_units=most,
        template_properties=()
        if machines
        else ("mixedInstancesPolicy", "launchTemplate", "launchConfiguration"),
        market=bought,
        on_demand_base=base,
        on_demand_percent=percent,
        region=_region(r),
        one_zone=_in_one_subnet(r.get("vpcZoneIdentifiers")),
        subnets=_subnets(r.get("vpcZoneIdentifiers")),
        notes=notes,
        never_scales_in=held,
        schedules_suspended=schedules_off,
    )


def _kept_in(r: Reading) -> tuple[str | None, bool]:
    """Why a group never loses the instances it launched (its scale-in suspended or its
    instances protected from it), and whether its scheduled actions are suspended."""
    suspended = r.get("suspendedProcesses")
    if r.unreadable(suspended, "suspendedProcesses"):
        return None, False
    listed = as_list(suspended)
    for index, process in enumerate(listed):
        r.unreadable(process, f"suspendedProcesses[{index}]")
    processes = {p for p in listed if isinstance(p, str)}
    protected = r.get("protectFromScaleIn")
    r.unreadable(protected, "protectFromScaleIn")
    held = None
    if "Terminate" in processes:
        held = "its Terminate process is suspended: it removes no instance"
    elif protected is True:
        held = "its instances are protected from scale-in"
    return held, "ScheduledActions" in processes


_POOL_STATES = ("stopped", "running", "hibernated")


def _warm_pool(
    r: Reading, desired: float | None, most: float | None, mixed: bool, prop: str = "warmPool"
) -> tuple[float | None, float | None, tuple[str, ...]]:
    """A group's size with its warm pool: instances prepared beside those in service. In a
    Running pool they run, and bill for their GPUs, as the group's own: the pool holds its
    prepared capacity (``maxGroupPreparedCapacity``, by default the group's max size) less
    the instances in service, and at least its ``minSize``. Stopped or hibernated, they bill
    storage only (not priced here). ``prop``: where the group keeps it (an EKS node group's
    ``warmPoolConfig``, the same settings)."""
    pool = r.get(prop)
    if r.unreadable(pool, prop) or not isinstance(pool, dict):
        return desired, most, ()
    state = pool.get("poolState")
    if state is None:
        state = "Stopped"  # AWS's default
    if r.unreadable(state, f"{prop}.poolState"):
        return desired, most, ()
    if not isinstance(state, str) or state.strip().lower() not in _POOL_STATES:
        r.undetermined.append(
            f"{prop}.poolState {shown(state)} is not Stopped, Running or Hibernated"
        )
        return desired, most, ()
    if state.strip().lower() != "running":
        return desired, most, ("its warm pool is stopped or hibernated: storage only, not priced",)
    if mixed:
        r.undetermined.append("a warm pool beside a mixed instances policy (AWS allows neither)")
        return desired, most, ()
    prepared_value = pool.get("maxGroupPreparedCapacity")
    # -1 (or nothing): the group's max size.
    if prepared_value in (None, -1):
        prepared = most
    else:
        prepared = r.size(prepared_value, f"{prop}.maxGroupPreparedCapacity", None)
    least = r.size(pool.get("minSize"), f"{prop}.minSize", 0.0)
    if prepared is None or least is None:
        return desired, most, ()
    with_pool = [None if size is None else max(prepared, size + least) for size in (desired, most)]
    return (
        with_pool[0],
        with_pool[1],
        (
            "its warm pool runs (Running): its instances bill as the group's own, up to its "
            f"prepared capacity ({prepared:g}) or {least:g} beyond those in service",
        ),
    )


def _fleet_market(
    total: float | None, on_demand: float | None, spot: float | None, default: Market
) -> tuple[Market, float | None, float | None]:
    """(market, on-demand base, percentage) of a fleet: its on-demand target, or what its spot
    target leaves, and the rest in its default capacity type (AWS fills the remainder so)."""
    if on_demand is None and spot is not None and total is not None:
        on_demand = max(total - spot, 0.0) if default == "on_demand" else 0.0
    if on_demand is None:
        return default, None, None
    if total is not None and default == "on_demand":
        on_demand = max(on_demand, total - (spot or 0.0))
    if on_demand == 0:
        return "spot", None, None
    if total is not None and on_demand >= total:
        return "on_demand", None, None
    return "mixed", on_demand, 0.0


@reads(types.AWS_FLEET)
def fleet(r: Reading) -> GpuFootprint | None:
    """An EC2 Fleet: its total target capacity of its overrides' machines (weights), on-demand and
    spot targets."""
    overrides = [
        o
        for config in as_list(r.get("launchTemplateConfigs"))
        for o in as_list(get_path(config, "overrides"))
    ]
    machines, weights = _weighted(r, overrides, "launch template override instanceType")
    spec = ("targetCapacitySpecification",)
    total = r.count(*spec, "totalTargetCapacity", where="target capacity")
    on_demand = r.count(*spec, "onDemandTargetCapacity", where="onDemandTargetCapacity")
    spot = r.count(*spec, "spotTargetCapacity", where="spotTargetCapacity")
    default = market(r.get(*spec, "defaultTargetCapacityType")) or "on_demand"
    bought, base, percent = _fleet_market(total, on_demand, spot, default)
    return r.footprint(
        cloud="aws",
        kind="EC2 Fleet",
        is_template=False,
        machines=machines,
        weights=weights,
        capacity_unit=_unit(r.get(*spec, "targetCapacityUnitType")),
        expected_units=total,
        max_units=total,
        template_properties=() if machines else ("launchTemplateConfigs",),
        market=bought,
        on_demand_base=base,
        on_demand_percent=percent,
        region=_region(r),
    )


@reads(types.AWS_SPOT_FLEET_REQUEST)
def spot_fleet_request(r: Reading) -> GpuFootprint | None:
    """A Spot Fleet request: its target capacity of its launch specifications' or overrides'
    machines (weights), on-demand target."""
    specs, spec_weights = _weighted(
        r, as_list(r.get("launchSpecifications")), "launch specification instanceType"
    )
    overrides = [
        o
        for config in as_list(r.get("launchTemplateConfigs"))
        for o in as_list(get_path(config, "overrides"))
    ]
    override_machines, override_weights = _weighted(
        r, overrides, "launch template override instanceType"
    )
    machines = specs + override_machines
    weighted = (spec_weights or not specs) and (override_weights or not override_machines)
    total = r.count("targetCapacity", where="targetCapacity")
    on_demand = r.count("onDemandTargetCapacity", where="onDemandTargetCapacity")
    bought, base, percent = _fleet_market(total, on_demand, None, "spot")
    return r.footprint(
        cloud="aws",
        kind="Spot Fleet request",
        is_template=False,
        machines=machines,
        weights=spec_weights + override_weights if weighted else (),
        capacity_unit=_unit(r.get("targetCapacityUnitType")),
        expected_units=total,
        max_units=total,
        template_properties=() if machines else ("launchTemplateConfigs",),
        market=bought,
        on_demand_base=base,
        on_demand_percent=percent,
        region=_region(r),
    )


@reads(types.AWS_CAPACITY_RESERVATION)
def capacity_reservation(r: Reading) -> GpuFootprint | None:
    """An EC2 capacity reservation: its instance count of its machine, billed whether used
    or not."""
    return _reserved(r, "capacity reservation")


@reads(types.AWS_CAPACITY_BLOCK)
def capacity_block(r: Reading) -> GpuFootprint | None:
    """A Capacity Block for ML: its instances of its machine, for the block's duration."""
    # The block's instance type and count come from its offering (outputs): known after create.
    if r.get("instanceType") is None:
        r.undetermined.append("the Capacity Block's instance type comes from its offering")
    return _reserved(r, "Capacity Block")


def _reserved(r: Reading, kind: str) -> GpuFootprint | None:
    machine = r.machine("aws", r.get("instanceType"), "instanceType")
    count = r.count("instanceCount", where="instanceCount")
    return r.footprint(
        cloud="aws",
        kind=kind,
        is_template=False,
        machines=[machine],
        expected_units=count,
        max_units=count,
        market="reserved",
        region=_region(r),
        zone=_zone(r),
    )


@reads(types.AWS_TRAINING_JOB)
def training_job(r: Reading) -> GpuFootprint | None:
    """A SageMaker training job: its instances (a heterogeneous cluster's at its largest machine)
    for one run of at most its MaxRuntime."""
    groups = r.get("resourceConfig", "instanceGroups")
    notes: tuple[str, ...] = ()
    if isinstance(groups, list) and groups and r.get("resourceConfig", "instanceType") is None:
        # A heterogeneous cluster: its groups' machines, all its instances counted at the
        # largest of them (a gate errs high), as a note says.
        machines, count = _instance_groups(r, groups)
        notes = (
            "a heterogeneous cluster: its instances counted and priced at its largest machine",
        )
    else:
        machine = r.machine("aws", r.get("resourceConfig", "instanceType"), "resourceConfig")
        machines = [machine]
        count = r.count("resourceConfig", "instanceCount", where="instanceCount")
    max_run = r.number(
        r.get("stoppingCondition", "maxRuntimeInSeconds"),
        "maxRuntimeInSeconds",
        SAGEMAKER_DEFAULT_RUNTIME_SECONDS,
        positive=True,
        most=SAGEMAKER_MAX_RUNTIME_SECONDS,
    )
    return r.footprint(
        cloud="aws",
        kind="SageMaker training job",
        is_template=False,
        machines=machines,
        expected_units=count,
        max_units=count,
        idle_hours_per_run=_keep_alive_hours(
            r, r.get("resourceConfig", "keepAlivePeriodInSeconds"), "keepAlivePeriodInSeconds"
        ),
        notes=notes,
        market="spot" if r.get("enableManagedSpotTraining") is True else "on_demand",
        region=_region(r),
        run_hours=(max_run or SAGEMAKER_DEFAULT_RUNTIME_SECONDS) / 3600.0,
    )


# SageMaker keeps a warm pool at most an hour after a job.
SAGEMAKER_MAX_KEEP_ALIVE_SECONDS = 3600


def _keep_alive_hours(r: Reading, value: Any, where: str) -> float | None:
    """Hours a training job's warm pool keeps (and bills) its instances after each run."""
    seconds = r.number(value, where, 0.0, most=SAGEMAKER_MAX_KEEP_ALIVE_SECONDS)
    return None if not seconds else seconds / 3600


def _instance_groups(r: Reading, groups: list[Any]) -> tuple[list[Machine | None], float | None]:
    machines: list[Machine | None] = []
    total: float | None = 0.0
    for index, group in enumerate(groups):
        group_props = group if isinstance(group, dict) else {}
        where = f"resourceConfig.instanceGroups[{index}]"
        machines.append(r.machine("aws", group_props.get("instanceType"), f"{where}.instanceType"))
        count = r.number(
            group_props.get("instanceCount"), f"{where}.instanceCount", None, whole=True
        )
        total = None if total is None or count is None else total + count
    return machines, total


@reads(types.GPUFLEET_SAGEMAKER_SPOT_TRAINING)
def sagemaker_job_template(r: Reading) -> GpuFootprint | None:
    """gpufleet's ``SageMakerSpotTraining`` without its optional job: the runs a notebook or
    pipeline starts from its ``estimator_kwargs``, described by its registered outputs."""
    if r.get("instance_type") is None or r.get("training_job_arn") not in (None, ""):
        return None  # not captured with its outputs, or the job is in the stack (read there)
    machine = r.machine("aws", r.get("instance_type"), "instance_type")
    count = r.count("instance_count", where="instance_count")
    max_run = r.number(
        r.get("max_run_seconds"),
        "max_run_seconds",
        SAGEMAKER_DEFAULT_RUNTIME_SECONDS,
        positive=True,
        most=SAGEMAKER_MAX_RUNTIME_SECONDS,
    )
    minutes = r.number(
        r.get("expected_minutes"), "expected_minutes", None, whole=True, most=HOURS_PER_MONTH * 60
    )
    # With its runs' expected use a month (as the plan priced it): monthly, in the totals;
    # without: one run, shown apart (runs start outside the stack).
    per_run = minutes is None
    kwargs = r.get("estimator_kwargs")
    keep_alive = kwargs.get("keep_alive_period_in_seconds") if isinstance(kwargs, dict) else None
    # Its own setting; without it (or not known) the on-demand rate, never a spot guess.
    spot = r.get("use_spot_instances")
    if spot is None and isinstance(kwargs, dict):
        spot = kwargs.get("use_spot_instances")
    return r.footprint(
        cloud="aws",
        kind="SageMaker job template",
        is_template=False,
        machines=[machine],
        expected_units=count if per_run else 0.0,
        max_units=count,
        market="spot" if spot is True else "on_demand",
        region=_region(r),
        run_hours=(max_run or SAGEMAKER_DEFAULT_RUNTIME_SECONDS) / 3600.0 if per_run else None,
        outside_stack=per_run,
        idle_hours_per_run=_keep_alive_hours(
            r, keep_alive, "estimator_kwargs.keep_alive_period_in_seconds"
        ),
        declared_minutes=None if minutes is None else int(minutes),
    )


@sizes(types.AWS_AUTOSCALING_SCHEDULE)
def scheduled_action(r: Reading) -> Scaler | None:
    """One scheduled action of an Auto Scaling group (its ``autoscalingGroupName``): a weekly
    recurrence sets the desired, min or max size (-1: left alone) at minutes of the week, the
    group's schedule (``weekly_use.bounded_use``: a min raised and never lowered holds all
    week). A one-off action runs once, and what it raises holds from then on: taken as the
    group's own size (a lowering is not counted: it may be long past or far ahead)."""
    recurrence = r.get("recurrence")
    sets: dict[str, float | None] = {
        key: r.number(r.get(key), key, None, whole=True)
        for key in ("desiredCapacity", "minSize", "maxSize")
        if r.get(key) not in (None, -1)
    }
    points: dict[str, tuple[SetPoint, ...]] = {}
    unread = None
    zone = r.get("timeZone")
    if is_unknown(zone):
        r.unknown_value("its timeZone is")  # known once deployed
    zone = zone if isinstance(zone, str) and zone and not is_unknown(zone) else "UTC"
    offset = utc_offset_minutes(zone)
    if recurrence is not None and sets:
        if is_unknown(recurrence):
            r.unknown_value("its recurrence is")  # known once deployed
        elif not isinstance(recurrence, str):
            unread = f"its recurrence {shown(recurrence)} is not a cron"
        elif any(size is None for size in sets.values()):
            pass  # what it sets cannot be read: recorded, the group's size undetermined
        elif offset is None:
            unread = f"its timeZone {shown(zone)} is not an IANA time zone"
        else:
            try:
                # In UTC's week: the group's actions may be in several zones.
                points = {
                    key: tuple(
                        (in_utc(minute, offset), size)
                        for minute, size in cron_set_points(recurrence, size)
                    )
                    for key, size in sets.items()
                    if size is not None
                }
            except ScheduleError as exc:
                unread = str(exc)
    # Whatever it sets, the group may hold that many while it does: the most the group holds.
    most = max((size for size in sets.values() if size is not None), default=None)
    once = recurrence is None
    return Scaler(
        "autoscalingGroupName",
        None,
        most,
        active=True,
        # A size it sets that cannot be read (a secret, NaN, unknown in a preview) leaves the
        # group's size undetermined: never dropped.
        undetermined=tuple(r.undetermined),
        set_points=points.get("desiredCapacity", ()),
        schedule_unread=unread,
        bounds=False,
        time_zones=frozenset({"UTC"}) if recurrence is not None else frozenset(),
        min_points=points.get("minSize", ()),
        max_points=points.get("maxSize", ()),
        raises_min=sets.get("minSize") if once else None,
        raises_desired=sets.get("desiredCapacity") if once else None,
        # Setting the desired size may take the group down as well as up.
        schedule_scales_in="desiredCapacity" in sets,
        sets_size="desiredCapacity" in sets or "minSize" in sets,
    )


# Which way a scaling policy's adjustment moves its group, by its sign.
_OUT, _IN = "out", "in"


@sizes(types.AWS_AUTOSCALING_POLICY)
def scaling_policy(r: Reading) -> Scaler | None:
    """A scaling policy of an Auto Scaling group: the group sizes itself (on load), between its
    own min and max; what it runs is its declared use, else it is unpriced, never its size at
    rest ($0 for a group at zero). Which way it moves the group is read: a group whose
    policies only add capacity stays at its max once load has come (``scales_in`` False)."""
    if r.get("enabled") is False:
        return None  # a disabled policy moves nothing
    directions, unread = _policy_directions(r)
    if not directions and unread is None:
        return None  # it forecasts only, or adjusts by nothing
    return Scaler(
        "autoscalingGroupName",
        None,
        None,
        active=True,
        bounds=False,
        scales_out=_OUT in directions or unread is not None,
        scales_in=_IN in directions,
        direction_unread=unread,
        # On load: above what a schedule sets, what load adds is the declared use.
        load_scaling=True,
    )


def _policy_directions(r: Reading) -> tuple[set[str], str | None]:
    """Which ways a scaling policy moves its group (AWS's four policy types), or why that
    cannot be read."""
    kind = r.get("policyType")
    if kind is None:
        kind = "SimpleScaling"  # AWS's default
    if is_unknown(kind) or not isinstance(kind, str):
        return set(), "its policyType is not known"
    if kind == "TargetTrackingScaling":
        # It removes capacity too unless told not to.
        disabled = r.get("targetTrackingConfiguration", "disableScaleIn")
        if is_unknown(disabled):
            return {_OUT}, "its disableScaleIn is not known"
        return ({_OUT} if disabled is True else {_OUT, _IN}), None
    if kind == "PredictiveScaling":
        mode = r.get("predictiveScalingConfiguration", "mode")
        # ForecastOnly (AWS's default) forecasts and scales nothing; ForecastAndScale raises
        # the capacity ahead of the forecast and never removes any (AWS: it "does not scale
        # in"): another policy must.
        if is_unknown(mode):
            return {_OUT}, "its predictive scaling mode is not known"
        return ({_OUT} if mode == "ForecastAndScale" else set()), None
    if kind not in ("SimpleScaling", "StepScaling"):
        return set(), f"its policyType {shown(kind)} is not one AWS has"
    if r.get("adjustmentType") == "ExactCapacity":
        return {_OUT, _IN}, None  # it sets the size: up or down
    if kind == "SimpleScaling":
        adjustments = [r.get("scalingAdjustment")]
    else:
        adjustments = [
            get_path(step, "scalingAdjustment") for step in as_list(r.get("stepAdjustments"))
        ]
    directions: set[str] = set()
    for value in adjustments:
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            return directions, f"its scalingAdjustment {shown(value)} is not a number"
        if value > 0:
            directions.add(_OUT)
        elif value < 0:
            directions.add(_IN)
    return directions, None


@reads(types.AWS_LAUNCH_CONFIGURATION)
def launch_configuration(r: Reading) -> GpuFootprint | None:
    """A launch configuration: its machine, spot when it sets a spot price; no count."""
    machine = r.machine("aws", r.get("instanceType"), "instanceType")
    return r.footprint(
        cloud="aws",
        kind="launch configuration",
        is_template=True,
        machines=[machine],
        # A launch configuration with a spot price launches Spot Instances.
        market="spot" if r.get("spotPrice") not in (None, "") else "on_demand",
        region=_region(r),
    )


# Instance types AWS Batch picks itself ("optimal" and the default families): CPU machines.
_BATCH_CPU_CHOICES = ("optimal", "default_x86_64", "default_arm64")


def family_machines(r: Reading, value: Any, where: str) -> list[Machine]:
    """The machines an instance type *or family* names ("p4d" is every p4d size the catalog
    knows; a family of GPU look the catalog does not know is undetermined)."""
    name = r.machine_name("aws", value, where)
    if name is None or name in _BATCH_CPU_CHOICES:
        return []
    if "." in name:
        machine = r.machine("aws", name, where)
        return [machine] if machine is not None else []
    family = [m for m in r.catalog.machines_of("aws") if m.instance_type.split(".")[0] == name]
    if not family and looks_like_gpu("aws", name):
        r.undetermined.append(f"{where} family {name} is not in the GPU catalog (GPUs unknown)")
    return family


@reads(types.AWS_BATCH_COMPUTE_ENVIRONMENT)
def batch_compute_environment(r: Reading) -> GpuFootprint | None:
    """A Batch compute environment: up to its max vCPUs of its instance types or families (Fargate
    runs no GPUs)."""
    resources = r.get("computeResources")
    if resources is None or is_unknown(resources):
        if is_unknown(resources):
            r.unknown_value("computeResources are")
        return r.footprint(cloud="aws", kind="Batch compute environment", is_template=False)
    kind = get_path(resources, "type")
    if isinstance(kind, str) and kind.upper().startswith("FARGATE"):
        return None  # Fargate runs no GPUs
    types_ = get_path(resources, "instanceTypes")
    if is_unknown(types_):
        r.unknown_value("computeResources.instanceTypes are")
    machines = [
        m
        for value in as_list(types_)
        for m in family_machines(r, value, "computeResources.instanceTypes")
    ]
    most = r.count("computeResources", "maxVcpus", where="maxVcpus")
    least = r.count("computeResources", "minVcpus", where="minVcpus")
    desired = r.count("computeResources", "desiredVcpus", where="desiredVcpus")
    r.at_most(least, "minVcpus", most, "maxVcpus")
    return r.footprint(
        cloud="aws",
        kind="Batch compute environment",
        is_template=False,
        machines=machines,
        # Sized in vCPUs: its jobs run it from minVcpus up to maxVcpus.
        capacity_unit=VCPU_UNITS,
        expected_units=desired if desired is not None else least or 0.0,
        max_units=most,
        market="spot" if str(kind).upper() == "SPOT" else "on_demand",
        region=_region(r),
    )


@reads(types.AWS_EKS_NODE_GROUP)
def eks_node_group(r: Reading) -> GpuFootprint | None:
    """An EKS managed node group: desired / max size of its instance types (or its launch
    template's), spot or on-demand, a Running warm pool's prepared instances on top."""
    listed = r.get("instanceTypes")
    if is_unknown(listed):
        r.unknown_value("instanceTypes are")
    machines = [r.machine("aws", t, "instanceTypes") for t in as_list(listed)]
    from_template = listed is None and r.get("launchTemplate") is not None
    most = r.count("scalingConfig", "maxSize", where="scalingConfig.maxSize")
    desired = r.count("scalingConfig", "desiredSize", where="scalingConfig.desiredSize")
    least = r.count("scalingConfig", "minSize", where="scalingConfig.minSize")
    r.at_most(desired, "desired size", most, "max size")
    r.at_most(least, "min size", most, "max size")
    desired, notes = at_least_min(desired, least)
    if r.get("warmPoolConfig") is not None:
        # Its Auto Scaling group's warm pool: a Running one's instances bill as its own.
        desired, most, pool = _warm_pool(r, desired, most, False, "warmPoolConfig")
        notes = (*notes, *pool)
    capacity = r.get("capacityType")
    return r.footprint(
        cloud="aws",
        kind="EKS node group",
        is_template=False,
        machines=machines,
        expected_units=desired,
        min_units=least,
        max_units=most,
        template_properties=("launchTemplate",) if from_template else (),
        market="spot" if str(capacity).upper() == "SPOT" else "on_demand",
        region=_region(r),
        notes=notes,
    )


@reads(types.AWS_SAGEMAKER_NOTEBOOK_INSTANCE)
def sagemaker_notebook(r: Reading) -> GpuFootprint | None:
    """A SageMaker notebook instance: one machine while it exists."""
    machine = r.machine("aws", r.get("instanceType"), "instanceType")
    return r.single("aws", "SageMaker notebook instance", machine, region=_region(r))


@reads(types.AWS_SAGEMAKER_APP)
def sagemaker_app(r: Reading) -> GpuFootprint | None:
    """A SageMaker Studio app: one machine of its resource spec while it runs."""
    machine = r.machine("aws", r.get("resourceSpec", "instanceType"), "resourceSpec.instanceType")
    return r.single("aws", "SageMaker Studio app", machine, region=_region(r))


@reads(types.AWS_SAGEMAKER_ENDPOINT_CONFIGURATION)
def sagemaker_endpoint_configuration(r: Reading) -> tuple[GpuFootprint, ...] | None:
    """An endpoint configuration's variants (and shadow variants), one part each: instances
    of its type, from its initial count up to its managed scaling's max when enabled.
    Serverless variants run no GPUs."""
    parts = []
    for key in ("productionVariants", "shadowProductionVariants"):
        listed = r.get(key)
        if is_unknown(listed):
            r.unknown_value(f"{key} are")
        for index, variant in enumerate(as_list(listed)):
            if not isinstance(variant, dict) or variant.get("serverlessConfig") is not None:
                continue
            v = r.within(variant)
            machine = v.machine("aws", v.get("instanceType"), f"{key}[{index}].instanceType")
            initial = v.count("initialInstanceCount", where="initialInstanceCount")
            most = initial
            if str(v.get("managedInstanceScaling", "status")).upper() == "ENABLED":
                scaled = v.count(
                    "managedInstanceScaling", "maxInstanceCount", where="maxInstanceCount"
                )
                most = None if scaled is None else max(scaled, initial or 0.0)
            name = variant.get("variantName")
            found = v.footprint(
                cloud="aws",
                kind="SageMaker endpoint variant",
                is_template=False,
                machines=[machine],
                expected_units=initial,
                max_units=most,
                market="on_demand",
                region=_region(r),
                part=name if isinstance(name, str) and name else f"{key}[{index}]",
            )
            if found is not None:
                parts.append(found)
    if not parts and r.undetermined:
        unread = r.footprint(
            cloud="aws", kind="SageMaker endpoint configuration", is_template=False
        )
        return (unread,) if unread is not None else None
    return tuple(parts) or None

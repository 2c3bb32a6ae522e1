"""GPU footprints of AWS resources: launch templates (machines, no count), EC2 instances, Auto
Scaling groups (mixed-instance overrides, on-demand base and percentage), EC2 Fleets, Spot Fleet
requests, capacity reservations and Capacity Blocks, SageMaker training jobs."""

from __future__ import annotations

from gpufleet import resource_types as types
from gpufleet.policies.footprints.model import GpuFootprint
from gpufleet.policies.footprints.reading import Reading, market, number, reads
from gpufleet.policies.properties import as_list, get_path, is_unknown
from gpufleet.pricing_models import HOURS_PER_MONTH

# SageMaker's own default for MaxRuntimeInSeconds: one day.
SAGEMAKER_DEFAULT_RUNTIME_SECONDS = 86400.0


def _region(r: Reading) -> str | None:
    region = r.get("region")
    if isinstance(region, str) and not is_unknown(region):
        return region
    zone = r.get("availabilityZone")
    if isinstance(zone, str) and not is_unknown(zone) and zone[-1:].isalpha():
        return zone[:-1]
    region = r.provider.get("region")
    return region if isinstance(region, str) and not is_unknown(region) else None


@reads(types.AWS_LAUNCH_TEMPLATE)
def launch_template(r: Reading) -> GpuFootprint | None:
    machine = r.machine("aws", r.get("instanceType"), "instanceType")
    return r.footprint(
        cloud="aws",
        kind="launch template",
        is_template=True,
        machines=[machine],
        market=market(r.get("instanceMarketOptions", "marketType")),
        region=_region(r),
    )


@reads(types.AWS_INSTANCE)
def instance(r: Reading) -> GpuFootprint | None:
    machine = r.machine("aws", r.get("instanceType"), "instanceType")
    from_template = r.get("instanceType") is None and r.get("launchTemplate") is not None
    return r.footprint(
        cloud="aws",
        kind="EC2 instance",
        is_template=False,
        machines=[machine],
        instances=1.0,
        template_properties=("launchTemplate",) if from_template else (),
        market=market(r.get("instanceMarketOptions", "marketType"))
        or (None if from_template else "on_demand"),
        region=_region(r),
    )


@reads(types.AWS_AUTOSCALING_GROUP)
def autoscaling_group(r: Reading) -> GpuFootprint | None:
    mixed = r.get("mixedInstancesPolicy")
    overrides = as_list(get_path(mixed, "launchTemplate", "overrides")) if mixed else []
    machines = [
        r.machine("aws", get_path(o, "instanceType"), "mixed-instance override instanceType")
        for o in overrides
        if isinstance(o, dict)
    ]
    if any(is_unknown(o) for o in overrides):
        r.undetermined.append("mixed-instance overrides are unknown during preview")
    size = r.count("maxSize", where="maxSize")
    bought, on_demand = None, None
    if mixed:
        base = number(get_path(mixed, "instancesDistribution", "onDemandBaseCapacity"), 0.0)
        percent = number(
            get_path(mixed, "instancesDistribution", "onDemandPercentageAboveBaseCapacity"),
            100.0,
        )
        if size is not None and base is not None and percent is not None:
            on_demand = min(base, size) + max(size - base, 0.0) * percent / 100.0
            bought = "spot" if on_demand == 0 else "on_demand" if on_demand == size else "mixed"
    return r.footprint(
        cloud="aws",
        kind="Auto Scaling group",
        is_template=False,
        machines=machines,
        instances=size,
        template_properties=() if machines else ("mixedInstancesPolicy", "launchTemplate"),
        market=bought,
        on_demand_instances=on_demand,
        region=_region(r),
    )


@reads(types.AWS_FLEET)
def fleet(r: Reading) -> GpuFootprint | None:
    machines = [
        r.machine("aws", get_path(o, "instanceType"), "launch template override instanceType")
        for config in as_list(r.get("launchTemplateConfigs"))
        for o in as_list(get_path(config, "overrides"))
    ]
    total = r.count("targetCapacitySpecification", "totalTargetCapacity", where="target capacity")
    default_type = r.get("targetCapacitySpecification", "defaultTargetCapacityType")
    on_demand = number(r.get("targetCapacitySpecification", "onDemandTargetCapacity"), None)
    return r.footprint(
        cloud="aws",
        kind="EC2 Fleet",
        is_template=False,
        machines=machines,
        instances=total,
        template_properties=() if machines else ("launchTemplateConfigs",),
        market="mixed" if on_demand is not None else market(default_type) or "on_demand",
        on_demand_instances=on_demand,
        region=_region(r),
    )


@reads(types.AWS_SPOT_FLEET_REQUEST)
def spot_fleet_request(r: Reading) -> GpuFootprint | None:
    machines = [
        r.machine("aws", get_path(spec, "instanceType"), "launch specification instanceType")
        for spec in as_list(r.get("launchSpecifications"))
    ] + [
        r.machine("aws", get_path(o, "instanceType"), "launch template override instanceType")
        for config in as_list(r.get("launchTemplateConfigs"))
        for o in as_list(get_path(config, "overrides"))
    ]
    total = r.count("targetCapacity", where="targetCapacity")
    on_demand = number(r.get("onDemandTargetCapacity"), None)
    return r.footprint(
        cloud="aws",
        kind="Spot Fleet request",
        is_template=False,
        machines=machines,
        instances=total,
        template_properties=() if machines else ("launchTemplateConfigs",),
        market="spot" if not on_demand else "mixed",
        on_demand_instances=on_demand,
        region=_region(r),
    )


@reads(types.AWS_CAPACITY_RESERVATION)
def capacity_reservation(r: Reading) -> GpuFootprint | None:
    return _reserved(r, "capacity reservation")


@reads(types.AWS_CAPACITY_BLOCK)
def capacity_block(r: Reading) -> GpuFootprint | None:
    # The block's instance type and count come from its offering (outputs): known after create.
    if r.get("instanceType") is None:
        r.undetermined.append("the Capacity Block's instance type comes from its offering")
    return _reserved(r, "Capacity Block")


def _reserved(r: Reading, kind: str) -> GpuFootprint | None:
    machine = r.machine("aws", r.get("instanceType"), "instanceType")
    return r.footprint(
        cloud="aws",
        kind=kind,
        is_template=False,
        machines=[machine],
        instances=r.count("instanceCount", where="instanceCount"),
        market="reserved",
        region=_region(r),
    )


@reads(types.AWS_TRAINING_JOB)
def training_job(r: Reading) -> GpuFootprint | None:
    machine = r.machine("aws", r.get("resourceConfig", "instanceType"), "resourceConfig")
    spot = r.get("enableManagedSpotTraining")
    max_run = number(
        r.get("stoppingCondition", "maxRuntimeInSeconds"), SAGEMAKER_DEFAULT_RUNTIME_SECONDS
    )
    return r.footprint(
        cloud="aws",
        kind="SageMaker training job",
        is_template=False,
        machines=[machine],
        instances=r.count("resourceConfig", "instanceCount", where="instanceCount"),
        market="spot" if spot is True else "on_demand",
        region=_region(r),
        # One run, at most its MaxRuntime.
        hours_per_month=min(
            (max_run or SAGEMAKER_DEFAULT_RUNTIME_SECONDS) / 3600.0, HOURS_PER_MONTH
        ),
    )

"""What GPU capacity a resource describes: machines, how many, priced how, where.

``read_gpu_footprint(type, props, provider_props)`` understands the resources through which
GPU capacity is bought on the three clouds, whether written by gpufleet's components or by hand:

- templates (machines, no count): AWS launch templates, GCP instance templates;
- capacity (machines x count): EC2 instances, Auto Scaling groups (mixed-instance overrides),
  EC2 Fleets, Spot Fleet requests, capacity reservations, SageMaker training jobs, GCP
  instances, managed instance groups (target size), reservations, Azure VM scale sets (sku
  capacity), Azure ML compute clusters (max nodes), Azure capacity reservations.

Capacity whose machine comes from a template (an ASG's launch template, a MIG's instance
template) names the properties that reference it; ``resolve_template`` fills it in from the
stack's property dependencies, which stay known in a preview even when the template's id does
not. GPUs per machine come from the shipped catalog; a machine type that looks like a GPU type
but is not in the catalog, or is unknown during a preview, is "undetermined", never ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cache
from statistics import fmean
from typing import Any

from gpufleet.planner.catalog import Catalog, Offer, load_catalog
from gpufleet.planner.catalog_build import gcp_built_in_gpus
from gpufleet.planner.gpus import normalize_gpu_name
from gpufleet.planner.pricing import sagemaker_markup
from gpufleet.policies.properties import as_list, get_path, is_unknown
from gpufleet.policies.same_input_memo import SameInputMemo

HOURS_PER_MONTH = 730.0

_AWS_GPU_FAMILY = re.compile(r"^(?:ml\.)?(p\d|g\d|trn\d|inf\d|dl\d|gr\d|vt\d)", re.I)
_GCP_GPU_FAMILY = re.compile(r"^(a\d|g\d)-")
_AZURE_GPU_FAMILY = re.compile(r"^standard_n", re.I)
_ACCELERATOR_NAMES = {
    "nvidia-tesla-t4": "T4",
    "nvidia-tesla-v100": "V100",
    "nvidia-tesla-p100": "P100",
    "nvidia-tesla-p4": "P4",
    "nvidia-tesla-a100": "A100",
    "nvidia-a100-80gb": "A100-80GB",
    "nvidia-h100-80gb": "H100",
    "nvidia-h100-mega-80gb": "H100",
    "nvidia-h200-141gb": "H200",
    "nvidia-l4": "L4",
}


@dataclass(frozen=True)
class Machine:
    cloud: str
    instance_type: str
    gpu_name: str
    gpus: int
    # SageMaker bills ml.* above the EC2 rate of the same machine.
    sagemaker: bool = False


@dataclass(frozen=True)
class GpuFootprint:
    cloud: str
    kind: str  # what it is, for messages: "launch template", "Auto Scaling group", ...
    is_template: bool
    machines: tuple[Machine, ...] = ()
    # Why the machine or the count cannot be determined; empty when both are known.
    undetermined: tuple[str, ...] = ()
    instances: float | None = None  # the most instances it runs (capacity only)
    # Properties referencing a template that supplies the machines (resolve_template).
    template_properties: tuple[str, ...] = ()
    # "spot", "on-demand" or "reserved"; None when the template decides (market options).
    pricing: str | None = None
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
    """GPU shapes and prices from the shipped catalog, looked up by cloud and machine type."""

    def __init__(self, catalog: Catalog) -> None:
        self._offers: dict[tuple[str, str], list[Offer]] = {}
        for offer in catalog.offers:
            key = (offer.cloud, offer.instance_type.lower())
            self._offers.setdefault(key, []).append(offer)

    def machine(
        self, cloud: str, instance_type: str, attached: tuple[str, int] | None = None
    ) -> Machine | None:
        """The machine, or None when the catalog does not know the type (or pairing)."""
        sagemaker = cloud == "aws" and instance_type.startswith("ml.")
        base = instance_type.removeprefix("ml.") if sagemaker else instance_type
        offers = self._matching(cloud, base, attached)
        if not offers:
            return None
        first = offers[0]
        return Machine(cloud, instance_type, first.gpu_name, first.gpu_count, sagemaker)

    def hourly(self, machine: Machine, region: str | None, pricing: str) -> float | None:
        """Mean catalog price per machine-hour in ``region`` (all regions when None)."""
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
        if pricing == "spot":
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
        self, cloud: str, instance_type: str, attached: tuple[str, int] | None
    ) -> list[Offer]:
        offers = self._offers.get((cloud, instance_type.lower()), [])
        if attached is not None:
            offers = [o for o in offers if (o.gpu_name, o.gpu_count) == attached]
        return offers


@cache
def shipped_machine_catalog() -> MachineCatalog:
    return MachineCatalog(load_catalog())


def looks_like_gpu(cloud: str, instance_type: str) -> bool:
    pattern = {"aws": _AWS_GPU_FAMILY, "gcp": _GCP_GPU_FAMILY, "azure": _AZURE_GPU_FAMILY}[cloud]
    return bool(pattern.match(instance_type))


def read_gpu_footprint(
    type_: str,
    props: dict[str, Any],
    provider_props: dict[str, Any] | None = None,
    machines: MachineCatalog | None = None,
) -> GpuFootprint | None:
    """The GPU footprint of one resource, or None when it holds no GPUs (or is no compute)."""
    reader = _READERS.get(type_)
    if reader is None:
        return None
    return reader(_Reading(props, provider_props or {}, machines or shipped_machine_catalog()))


def _read_by_props(props: dict[str, Any], type_: str, provider_props: dict[str, Any]) -> Any:
    return read_gpu_footprint(type_, props, provider_props)


_footprint_memo = SameInputMemo(_read_by_props)


def shared_gpu_footprint(
    type_: str, props: dict[str, Any], provider_props: dict[str, Any]
) -> GpuFootprint | None:
    """``read_gpu_footprint`` for resource policies: the policies of one request get the same
    props object, and read its footprint once between them."""
    return _footprint_memo(props, type_, provider_props)


def resolve_template(footprint: GpuFootprint, template: GpuFootprint | None) -> GpuFootprint:
    """``footprint`` with the machines (and market) of the template it launches from."""
    if not footprint.template_properties or footprint.machines:
        return footprint
    if template is None:
        return replace(
            footprint,
            undetermined=(*footprint.undetermined, "its template is not in this stack"),
        )
    pricing = footprint.pricing or template.pricing or "on-demand"
    return replace(
        footprint,
        machines=template.machines,
        undetermined=footprint.undetermined + template.undetermined,
        pricing=pricing,
    )


class _Reading:
    """One resource's properties and the helpers every reader needs."""

    def __init__(
        self, props: dict[str, Any], provider: dict[str, Any], machines: MachineCatalog
    ) -> None:
        self.props = props
        self.provider = provider
        self.catalog = machines
        self.undetermined: list[str] = []

    def get(self, *path: str | int) -> Any:
        return get_path(self.props, *path)

    def machine(
        self,
        cloud: str,
        instance_type: Any,
        where: str,
        attached: tuple[str, int] | None = None,
    ) -> Machine | None:
        """The machine for a type property; records why when it cannot be determined."""
        if instance_type is None:
            return None
        if is_unknown(instance_type):
            self.undetermined.append(f"{where} is unknown during preview")
            return None
        found = self.catalog.machine(cloud, str(instance_type), attached)
        if found is None and (attached is not None or looks_like_gpu(cloud, str(instance_type))):
            what = f"{instance_type} with {attached[1]} x {attached[0]}" if attached else None
            self.undetermined.append(
                f"{where} {what or instance_type} is not in the GPU catalog (GPUs unknown)"
            )
        return found

    def count(self, *path: str | int, where: str) -> float | None:
        value = self.get(*path)
        if is_unknown(value):
            self.undetermined.append(f"{where} is unknown during preview")
            return None
        if value is None:
            return None
        try:
            return float(value)
        except (TypeError, ValueError):
            self.undetermined.append(f"{where} {value!r} is not a number")
            return None

    def aws_region(self) -> str | None:
        region = self.get("region")
        if isinstance(region, str) and not is_unknown(region):
            return region
        zone = self.get("availabilityZone")
        if isinstance(zone, str) and not is_unknown(zone) and zone[-1:].isalpha():
            return zone[:-1]
        region = self.provider.get("region")
        return region if isinstance(region, str) and not is_unknown(region) else None

    def gcp_region(self) -> str | None:
        for key in ("region", "zone"):
            value = self.get(key)
            if isinstance(value, str) and value and not is_unknown(value):
                value = value.rsplit("/", 1)[-1]
                return value if key == "region" else value.rsplit("-", 1)[0]
        value = self.provider.get("region")
        return value if isinstance(value, str) and not is_unknown(value) else None

    def azure_region(self) -> str | None:
        value = self.get("location")
        return value.lower() if isinstance(value, str) and not is_unknown(value) else None

    def footprint(self, **fields: Any) -> GpuFootprint | None:
        machines = tuple(m for m in fields.pop("machines", ()) if m is not None)
        if not machines and not self.undetermined and not fields.get("template_properties"):
            return None  # no GPU machine here
        return GpuFootprint(machines=machines, undetermined=tuple(self.undetermined), **fields)


def _market(value: Any) -> str | None:
    if is_unknown(value) or value is None:
        return None
    return "spot" if str(value).lower() == "spot" else "on-demand"


# --- AWS ---------------------------------------------------------------------------------


def _aws_launch_template(r: _Reading) -> GpuFootprint | None:
    machine = r.machine("aws", r.get("instanceType"), "instanceType")
    return r.footprint(
        cloud="aws",
        kind="launch template",
        is_template=True,
        machines=[machine],
        pricing=_market(r.get("instanceMarketOptions", "marketType")),
        region=r.aws_region(),
    )


def _aws_instance(r: _Reading) -> GpuFootprint | None:
    machine = r.machine("aws", r.get("instanceType"), "instanceType")
    from_template = r.get("instanceType") is None and r.get("launchTemplate") is not None
    return r.footprint(
        cloud="aws",
        kind="EC2 instance",
        is_template=False,
        machines=[machine],
        instances=1.0,
        template_properties=("launchTemplate",) if from_template else (),
        pricing=_market(r.get("instanceMarketOptions", "marketType"))
        or (None if from_template else "on-demand"),
        region=r.aws_region(),
    )


def _aws_autoscaling_group(r: _Reading) -> GpuFootprint | None:
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
    pricing, on_demand = None, None
    if mixed:
        base = _number(get_path(mixed, "instancesDistribution", "onDemandBaseCapacity"), 0.0)
        percent = _number(
            get_path(mixed, "instancesDistribution", "onDemandPercentageAboveBaseCapacity"),
            100.0,
        )
        if size is not None and base is not None and percent is not None:
            on_demand = min(base, size) + max(size - base, 0.0) * percent / 100.0
            pricing = "spot" if on_demand == 0 else "on-demand" if on_demand == size else "mixed"
    return r.footprint(
        cloud="aws",
        kind="Auto Scaling group",
        is_template=False,
        machines=machines,
        instances=size,
        template_properties=() if machines else ("mixedInstancesPolicy", "launchTemplate"),
        pricing=pricing,
        on_demand_instances=on_demand,
        region=r.aws_region(),
    )


def _aws_fleet(r: _Reading) -> GpuFootprint | None:
    machines = [
        r.machine("aws", get_path(o, "instanceType"), "launch template override instanceType")
        for config in as_list(r.get("launchTemplateConfigs"))
        for o in as_list(get_path(config, "overrides"))
    ]
    total = r.count("targetCapacitySpecification", "totalTargetCapacity", where="target capacity")
    default_type = r.get("targetCapacitySpecification", "defaultTargetCapacityType")
    on_demand = _number(r.get("targetCapacitySpecification", "onDemandTargetCapacity"), None)
    pricing = "spot" if default_type == "spot" else "on-demand"
    return r.footprint(
        cloud="aws",
        kind="EC2 Fleet",
        is_template=False,
        machines=machines,
        instances=total,
        template_properties=() if machines else ("launchTemplateConfigs",),
        pricing=pricing if on_demand is None else "mixed",
        on_demand_instances=on_demand,
        region=r.aws_region(),
    )


def _aws_spot_fleet(r: _Reading) -> GpuFootprint | None:
    machines = [
        r.machine("aws", get_path(spec, "instanceType"), "launch specification instanceType")
        for spec in as_list(r.get("launchSpecifications"))
    ] + [
        r.machine("aws", get_path(o, "instanceType"), "launch template override instanceType")
        for config in as_list(r.get("launchTemplateConfigs"))
        for o in as_list(get_path(config, "overrides"))
    ]
    total = r.count("targetCapacity", where="targetCapacity")
    on_demand = _number(r.get("onDemandTargetCapacity"), None)
    return r.footprint(
        cloud="aws",
        kind="Spot Fleet request",
        is_template=False,
        machines=machines,
        instances=total,
        template_properties=() if machines else ("launchTemplateConfigs",),
        pricing="spot" if not on_demand else "mixed",
        on_demand_instances=on_demand,
        region=r.aws_region(),
    )


def _aws_capacity_reservation(r: _Reading) -> GpuFootprint | None:
    return _aws_reserved(r, "capacity reservation")


def _aws_capacity_block(r: _Reading) -> GpuFootprint | None:
    # The block's instance type and count come from its offering (outputs): known after create.
    if r.get("instanceType") is None:
        r.undetermined.append("the Capacity Block's instance type comes from its offering")
    return _aws_reserved(r, "Capacity Block")


def _aws_reserved(r: _Reading, kind: str) -> GpuFootprint | None:
    machine = r.machine("aws", r.get("instanceType"), "instanceType")
    return r.footprint(
        cloud="aws",
        kind=kind,
        is_template=False,
        machines=[machine],
        instances=r.count("instanceCount", where="instanceCount"),
        pricing="reserved",
        region=r.aws_region(),
    )


def _aws_training_job(r: _Reading) -> GpuFootprint | None:
    machine = r.machine("aws", r.get("resourceConfig", "instanceType"), "resourceConfig")
    spot = r.get("enableManagedSpotTraining")
    max_run = _number(r.get("stoppingCondition", "maxRuntimeInSeconds"), 86400.0)
    return r.footprint(
        cloud="aws",
        kind="SageMaker training job",
        is_template=False,
        machines=[machine],
        instances=r.count("resourceConfig", "instanceCount", where="instanceCount"),
        pricing="spot" if spot is True else "on-demand",
        region=r.aws_region(),
        # One run, at most its MaxRuntime (SageMaker's default is one day).
        hours_per_month=min((max_run or 86400.0) / 3600.0, HOURS_PER_MONTH),
    )


# --- GCP ---------------------------------------------------------------------------------


def _gcp_machine(r: _Reading, machine_type: Any) -> Any:
    accelerators = [a for a in as_list(r.get("guestAccelerators")) if isinstance(a, dict)]
    if is_unknown(r.get("guestAccelerators")):
        r.undetermined.append("guestAccelerators are unknown during preview")
        return None
    if accelerators and not is_unknown(machine_type) and machine_type is not None:
        kind = str(get_path(accelerators[0], "type") or "").rsplit("/", 1)[-1]
        count = _number(get_path(accelerators[0], "count"), None)
        name = _ACCELERATOR_NAMES.get(kind) or normalize_gpu_name(kind)
        if name is None or count is None:
            r.undetermined.append(f"guest accelerator {kind!r} is not a known GPU")
            return None
        # The accelerators say what the machine carries, whether or not the catalog prices
        # this pairing (unpriced pairings show up in the budget instead).
        known = r.catalog.machine("gcp", str(machine_type), (name, int(count)))
        return known or Machine("gcp", str(machine_type), name, int(count))
    if machine_type is not None and not is_unknown(machine_type):
        built_in = gcp_built_in_gpus(str(machine_type).rsplit("/", 1)[-1])
        if built_in is None and not looks_like_gpu("gcp", str(machine_type)):
            return None
    return r.machine("gcp", machine_type, "machineType")


def _gcp_scheduling_pricing(r: _Reading) -> str:
    model = r.get("scheduling", "provisioningModel")
    preemptible = r.get("scheduling", "preemptible")
    return "spot" if model == "SPOT" or preemptible is True else "on-demand"


def _gcp_instance_template(r: _Reading) -> GpuFootprint | None:
    machine = _gcp_machine(r, r.get("machineType"))
    return r.footprint(
        cloud="gcp",
        kind="instance template",
        is_template=True,
        machines=[machine],
        pricing=_gcp_scheduling_pricing(r),
        region=r.gcp_region(),
    )


def _gcp_instance(r: _Reading) -> GpuFootprint | None:
    machine = _gcp_machine(r, r.get("machineType"))
    reserved = r.get("reservationAffinity", "type") == "SPECIFIC_RESERVATION"
    return r.footprint(
        cloud="gcp",
        kind="VM instance",
        is_template=False,
        machines=[machine],
        instances=1.0,
        # Runs inside a reservation this stack already pays for: not priced twice.
        pricing="reserved-consumer" if reserved else _gcp_scheduling_pricing(r),
        region=r.gcp_region(),
    )


def _gcp_instance_group(r: _Reading) -> GpuFootprint | None:
    return r.footprint(
        cloud="gcp",
        kind="managed instance group",
        is_template=False,
        instances=r.count("targetSize", where="targetSize"),
        template_properties=("versions", "instanceTemplate"),
        region=r.gcp_region(),
    )


def _gcp_reservation(r: _Reading) -> GpuFootprint | None:
    properties = r.get("specificReservation", "instanceProperties")
    machine_type = get_path(properties, "machineType")
    accelerators = [
        a for a in as_list(get_path(properties, "guestAccelerators")) if isinstance(a, dict)
    ]
    sub = _Reading(
        {"guestAccelerators": accelerators} if accelerators else {}, r.provider, r.catalog
    )
    machine = _gcp_machine(sub, machine_type)
    r.undetermined.extend(sub.undetermined)
    return r.footprint(
        cloud="gcp",
        kind="reservation",
        is_template=False,
        machines=[machine],
        instances=r.count("specificReservation", "count", where="specificReservation.count"),
        pricing="reserved",
        region=r.gcp_region(),
    )


# --- Azure -------------------------------------------------------------------------------


def _azure_scale_set(r: _Reading) -> GpuFootprint | None:
    machine = r.machine("azure", r.get("sku", "name"), "sku.name")
    priority = r.get("virtualMachineProfile", "priority")
    return r.footprint(
        cloud="azure",
        kind="VM scale set",
        is_template=False,
        machines=[machine],
        instances=r.count("sku", "capacity", where="sku.capacity"),
        pricing="spot" if priority in ("Spot", "Low") else "on-demand",
        region=r.azure_region(),
    )


def _azure_ml_compute(r: _Reading) -> GpuFootprint | None:
    inner = r.get("properties", "properties")
    if r.get("properties", "computeType") not in ("AmlCompute", None):
        return None
    machine = r.machine("azure", get_path(inner, "vmSize"), "vmSize")
    return r.footprint(
        cloud="azure",
        kind="Azure ML compute cluster",
        is_template=False,
        machines=[machine],
        instances=r.count(
            "properties", "properties", "scaleSettings", "maxNodeCount", where="maxNodeCount"
        ),
        pricing="spot" if get_path(inner, "vmPriority") == "LowPriority" else "on-demand",
        region=r.azure_region(),
    )


def _azure_capacity_reservation(r: _Reading) -> GpuFootprint | None:
    machine = r.machine("azure", r.get("sku", "name"), "sku.name")
    return r.footprint(
        cloud="azure",
        kind="capacity reservation",
        is_template=False,
        machines=[machine],
        instances=r.count("sku", "capacity", where="sku.capacity"),
        pricing="reserved",
        region=r.azure_region(),
    )


def _number(value: Any, default: float | None) -> float | None:
    if value is None:
        return default
    if is_unknown(value):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


_READERS = {
    "aws:ec2/launchTemplate:LaunchTemplate": _aws_launch_template,
    "aws:ec2/instance:Instance": _aws_instance,
    "aws:autoscaling/group:Group": _aws_autoscaling_group,
    "aws:ec2/fleet:Fleet": _aws_fleet,
    "aws:ec2/spotFleetRequest:SpotFleetRequest": _aws_spot_fleet,
    "aws:ec2/capacityReservation:CapacityReservation": _aws_capacity_reservation,
    "aws:ec2/capacityBlockReservation:CapacityBlockReservation": _aws_capacity_block,
    "aws:sagemaker/trainingJob:TrainingJob": _aws_training_job,
    "gcp:compute/instanceTemplate:InstanceTemplate": _gcp_instance_template,
    "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate": _gcp_instance_template,
    "gcp:compute/instance:Instance": _gcp_instance,
    "gcp:compute/instanceGroupManager:InstanceGroupManager": _gcp_instance_group,
    "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager": _gcp_instance_group,
    "gcp:compute/reservation:Reservation": _gcp_reservation,
    "azure-native:compute:VirtualMachineScaleSet": _azure_scale_set,
    "azure-native:machinelearningservices:Compute": _azure_ml_compute,
    "azure-native:compute:CapacityReservation": _azure_capacity_reservation,
}

GPU_RESOURCE_TYPES = frozenset(_READERS)

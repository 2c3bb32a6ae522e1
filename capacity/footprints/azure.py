"""GPU footprints of Azure resources: VM scale sets (sku capacity; Spot or Low priority), Azure
ML compute clusters (min and max nodes; low-priority VMs) and capacity reservations."""

from __future__ import annotations

from gpufleet import resource_types as types
from gpufleet.capacity.footprints.model import GpuFootprint
from gpufleet.capacity.footprints.reading import Reading, reads
from gpufleet.capacity.property_values import get_path, is_unknown
from gpufleet.pricing_models import LOW_PRIORITY


def _region(r: Reading) -> str | None:
    value = r.get("location")
    return value.lower() if isinstance(value, str) and not is_unknown(value) else None


@reads(types.AZURE_SCALE_SET)
def scale_set(r: Reading) -> GpuFootprint | None:
    machine = r.machine("azure", r.get("sku", "name"), "sku.name")
    priority = r.get("virtualMachineProfile", "priority")
    capacity = r.count("sku", "capacity", where="sku.capacity")
    return r.footprint(
        cloud="azure",
        kind="VM scale set",
        is_template=False,
        machines=[machine],
        expected_units=capacity,
        max_units=capacity,
        market="spot" if priority in ("Spot", "Low") else "on_demand",
        region=_region(r),
    )


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
    return r.footprint(
        cloud="azure",
        kind="capacity reservation",
        is_template=False,
        machines=[machine],
        expected_units=capacity,
        max_units=capacity,
        market="reserved",
        region=_region(r),
    )

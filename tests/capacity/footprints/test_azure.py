"""GPU footprints of Azure resources as users write them: scale sets, Azure ML clusters,
capacity reservations."""

from __future__ import annotations

import pytest

from gpufleet.capacity.footprints import read_gpu_footprint


@pytest.mark.parametrize(("priority", "market"), [("Spot", "spot"), ("Regular", "on_demand")])
def test_scale_set_capacity_and_priority(priority: str, market: str) -> None:
    found = read_gpu_footprint(
        "azure-native:compute:VirtualMachineScaleSet",
        {
            "location": "EastUS2",
            "sku": {"name": "Standard_NC24ads_A100_v4", "capacity": 3},
            "virtualMachineProfile": {"priority": priority},
        },
    )
    assert found is not None
    assert [(m.gpu_name, m.gpus) for m in found.machines] == [("A100-80GB", 1)]
    assert (found.max_units, found.market, found.region) == (3.0, market, "eastus2")


def test_ml_cluster_counts_its_max_nodes_on_low_priority() -> None:
    found = read_gpu_footprint(
        "azure-native:machinelearningservices:Compute",
        {
            "location": "eastus2",
            "properties": {
                "computeType": "AmlCompute",
                "properties": {
                    "vmSize": "Standard_NC4as_T4_v3",
                    "vmPriority": "LowPriority",
                    "scaleSettings": {"minNodeCount": 0, "maxNodeCount": 6},
                },
            },
        },
    )
    assert found is not None
    assert (found.kind, found.max_units, found.market) == ("Azure ML compute cluster", 6.0, "spot")
    other = read_gpu_footprint(
        "azure-native:machinelearningservices:Compute",
        {"properties": {"computeType": "ComputeInstance"}},
    )
    assert other is None


def test_capacity_reservation_is_reserved() -> None:
    found = read_gpu_footprint(
        "azure-native:compute:CapacityReservation",
        {"location": "eastus", "sku": {"name": "Standard_ND96asr_v4", "capacity": 2}},
    )
    assert found is not None
    assert (found.market, found.max_gpus) == ("reserved", 16)


def test_ml_cluster_with_more_min_nodes_than_max_is_undetermined() -> None:
    found = read_gpu_footprint(
        "azure-native:machinelearningservices:Compute",
        {
            "location": "eastus2",
            "properties": {
                "computeType": "AmlCompute",
                "properties": {
                    "vmSize": "Standard_NC4as_T4_v3",
                    "scaleSettings": {"minNodeCount": 10, "maxNodeCount": 2},
                },
            },
        },
    )
    assert found is not None
    assert found.undetermined == ("its minNodeCount 10 is above its maxNodeCount 2",)

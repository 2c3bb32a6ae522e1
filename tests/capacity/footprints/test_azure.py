"""GPU footprints of Azure resources as users write them: scale sets, Azure ML clusters,
capacity reservations; Container Apps GPU profiles, apps and jobs, Synapse GPU pools, standby
pools, AKS pools of virtual machines."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gpufleet.capacity.footprints import read_gpu_footprint, read_gpu_footprints
from gpufleet.capacity.stack_capacity import stack_capacity
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.policies.testing import UNKNOWN
from tests.capacity.footprints.stacks import capacity_by_name, stack_resource


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


_ENV_ID = "/subscriptions/s/resourceGroups/g/providers/Microsoft.App/managedEnvironments/gpu-env"
_ENVIRONMENT = stack_resource(
    "azure-native:app:ManagedEnvironment",
    "env",
    {
        "name": "gpu-env",
        "location": "West US 3",
        "workloadProfiles": [
            {"name": "Consumption", "workloadProfileType": "Consumption"},
            {"name": "general", "workloadProfileType": "D4", "minimumCount": 1, "maximumCount": 3},
            {
                "name": "a100",
                "workloadProfileType": "NC48-A100",
                "minimumCount": 1,
                "maximumCount": 4,
            },
            {"name": "t4", "workloadProfileType": "Consumption-GPU-NC8as-T4"},
        ],
    },
)


def test_container_apps_dedicated_gpu_profiles_are_nodes_of_the_environment() -> None:
    (a100,) = read_gpu_footprints(_ENVIRONMENT.type, _ENVIRONMENT.props)
    assert (a100.part, a100.expected_units, a100.max_units, a100.max_gpus) == ("a100", 1, 4, 8)
    assert [(m.gpu_name, m.gpus) for m in a100.machines] == [("A100-80GB", 2)]
    assert (a100.region, a100.undetermined) == ("west us 3", ())


@pytest.mark.parametrize(
    ("profile", "why"),
    [
        ({"workloadProfileType": "NC48-A100"}, "its gpu profile sets no maximumCount"),
        (
            {"workloadProfileType": "NC48-A100", "minimumCount": 5, "maximumCount": 2},
            "its minimumCount 5 is above its maximumCount 2",
        ),
        ({"workloadProfileType": UNKNOWN}, "gpu.workloadProfileType is unknown during preview"),
        ({"workloadProfileType": "NC80-H100"}, "'NC80-H100' is not one gpufleet knows"),
    ],
)
def test_container_apps_profiles_that_cannot_be_read_say_why(
    profile: dict[str, Any], why: str
) -> None:
    (found,) = read_gpu_footprints(
        "azure-native:app:ManagedEnvironment", {"workloadProfiles": [{"name": "gpu", **profile}]}
    )
    assert any(why in u for u in found.undetermined), found.undetermined


def test_container_apps_on_a_serverless_gpu_profile_hold_a_gpu_per_replica() -> None:
    app = stack_resource(
        "azure-native:app:ContainerApp",
        "app",
        {
            "managedEnvironmentId": UNKNOWN,
            "workloadProfileName": "t4",
            "template": {"scale": {"minReplicas": 1, "maxReplicas": 6}},
        },
        managedEnvironmentId=["env"],
    )
    # Named by its environment's literal id (``environmentId``), replicas by default 0 to 10.
    literal = stack_resource(
        "azure-native:app:ContainerApp",
        "literal",
        {"environmentId": _ENV_ID, "workloadProfileName": "T4"},
    )
    on_cpu = stack_resource(
        "azure-native:app:ContainerApp",
        "cpu",
        {"environmentId": _ENV_ID, "workloadProfileName": "general"},
    )
    # On the dedicated GPU profile: its nodes are the environment's, counted once there.
    on_dedicated = replace(
        on_cpu,
        name="dedicated",
        urn="urn::dedicated",
        props={"environmentId": _ENV_ID, "workloadProfileName": "a100"},
    )
    found = capacity_by_name([_ENVIRONMENT, app, literal, on_cpu, on_dedicated])
    assert set(found) == {"env/a100", "app", "literal"}
    assert (found["app"].expected_units, found["app"].max_gpus) == (1.0, 6)
    assert [(m.gpu_name, m.gpus) for m in found["app"].machines] == [("T4", 1)]
    assert (found["literal"].expected_units, found["literal"].max_units) == (0.0, 10.0)
    assert all(f.undetermined == () for f in found.values())


def test_a_container_app_whose_profile_cannot_be_told_is_undetermined() -> None:
    outside = stack_resource(
        "azure-native:app:ContainerApp",
        "app",
        {
            "environmentId": "/subscriptions/s/x/managedEnvironments/other",
            "workloadProfileName": "gpu",
        },
    )
    (found,) = [c.footprint for c in stack_capacity([_ENVIRONMENT, outside]) if c.name == "app"]
    assert "in an environment outside this stack" in found.undetermined[0]
    missing = replace(outside, props={"environmentId": _ENV_ID, "workloadProfileName": "nope"})
    (found,) = [c.footprint for c in stack_capacity([_ENVIRONMENT, missing]) if c.name == "app"]
    assert found.undetermined == ("its workload profile 'nope' is not one its environment has",)
    # On the Consumption profile (named, or by default), wherever its environment is: no GPU.
    for props in ({"workloadProfileName": "Consumption"}, {"environmentId": "elsewhere"}):
        assert read_gpu_footprints("azure-native:app:ContainerApp", props) == ()


def _job(configuration: dict[str, Any]) -> StackResource:
    return stack_resource(
        "azure-native:app:Job",
        "job",
        {"environmentId": _ENV_ID, "workloadProfileName": "t4", "configuration": configuration},
    )


def test_container_apps_jobs_by_trigger() -> None:
    event = _job(
        {
            "triggerType": "Event",
            "replicaTimeout": 600,
            "eventTriggerConfig": {"parallelism": 2, "scale": {"maxExecutions": 5}},
        }
    )
    assert capacity_by_name([_ENVIRONMENT, event])["job"].max_gpus == 10
    # Every hour, each execution up to 2.5 hours: three at once, two replicas each.
    scheduled = _job(
        {
            "triggerType": "Schedule",
            "replicaTimeout": 9000,
            "scheduleTriggerConfig": {"cronExpression": "0 * * * *", "parallelism": 2},
        }
    )
    job = capacity_by_name([_ENVIRONMENT, scheduled])["job"]
    assert (job.expected_units, job.max_units) == (0.0, 6.0)
    assert job.weekly_use == 168 * 150 * 2
    manual = _job({"triggerType": "Manual", "replicaTimeout": 1800})
    job = capacity_by_name([_ENVIRONMENT, manual])["job"]
    assert (job.max_units, job.outside_stack, job.run_hours) == (1.0, True, 0.5)
    bad = _job(
        {
            "triggerType": "Schedule",
            "replicaTimeout": 60,
            "scheduleTriggerConfig": {"cronExpression": "every day"},
        }
    )
    assert "cronExpression" in capacity_by_name([_ENVIRONMENT, bad])["job"].undetermined[0]


@pytest.mark.parametrize(("size", "gpus"), [("Large", 1), ("XLarge", 4), ("xlarge", 4)])
def test_synapse_gpu_pools_hold_gpus_per_node_up_to_their_max(size: str, gpus: int) -> None:
    fixed = read_gpu_footprint(
        "azure-native:synapse:BigDataPool",
        {"nodeSizeFamily": "HardwareAcceleratedGPU", "nodeSize": size, "nodeCount": 3},
    )
    assert fixed is not None and (fixed.expected_units, fixed.max_gpus) == (0.0, 3 * gpus)
    scaling = read_gpu_footprint(
        "azure-native:synapse:BigDataPool",
        {
            "nodeSizeFamily": "HardwareAcceleratedGPU",
            "nodeSize": size,
            "nodeCount": 3,
            "autoScale": {"enabled": True, "minNodeCount": 3, "maxNodeCount": 12},
        },
    )
    assert scaling is not None and scaling.max_gpus == 12 * gpus


def test_synapse_pools_of_other_families_or_unknown_sizes() -> None:
    assert (
        read_gpu_footprint(
            "azure-native:synapse:BigDataPool",
            {"nodeSizeFamily": "MemoryOptimized", "nodeSize": "XXLarge", "nodeCount": 40},
        )
        is None
    )
    odd = read_gpu_footprint(
        "azure-native:synapse:BigDataPool",
        {"nodeSizeFamily": "HardwareAcceleratedGPU", "nodeSize": "Small", "nodeCount": 3},
    )
    assert odd is not None and "not a GPU node size" in odd.undetermined[0]
    unknown = read_gpu_footprint("azure-native:synapse:BigDataPool", {"nodeSizeFamily": UNKNOWN})
    assert unknown is not None and unknown.unknown


def test_a_running_standby_pool_adds_its_ready_vms_to_its_scale_set() -> None:
    scale_set = stack_resource(
        "azure-native:compute:VirtualMachineScaleSet",
        "vmss",
        {"name": "gpu-vmss", "sku": {"name": "Standard_NC24ads_A100_v4", "capacity": 2}},
    )
    running = stack_resource(
        "azure-native:standbypool:StandbyVirtualMachinePool",
        "standby",
        {
            "virtualMachineState": "Running",
            "attachedVirtualMachineScaleSetId": "/subscriptions/s/virtualMachineScaleSets/gpu-vmss",
            "elasticityProfile": {"maxReadyCapacity": 5, "minReadyCapacity": 1},
        },
    )
    assert capacity_by_name([scale_set, running])["vmss"].max_units == 7.0
    deallocated = replace(running, props={**running.props, "virtualMachineState": "Deallocated"})
    assert capacity_by_name([scale_set, deallocated])["vmss"].max_units == 2.0
    unknown = replace(
        running, props={**running.props, "elasticityProfile": {"maxReadyCapacity": UNKNOWN}}
    )
    assert capacity_by_name([scale_set, unknown])["vmss"].undetermined == (
        "maxReadyCapacity is unknown during preview",
    )


def test_an_aks_pool_of_virtual_machines_holds_each_size_it_lists() -> None:
    parts = read_gpu_footprints(
        "azure-native:containerservice:AgentPool",
        {
            "type": "VirtualMachines",
            "virtualMachinesProfile": {
                "scale": {
                    "manual": [
                        {"size": "Standard_NC24ads_A100_v4", "count": 3},
                        {"size": "Standard_D4s_v5", "count": 10},
                        {"size": "Standard_NC48ads_A100_v4", "count": 1},
                    ]
                }
            },
        },
    )
    assert [(p.part, p.max_gpus) for p in parts] == [
        ("Standard_NC24ads_A100_v4", 3),
        ("Standard_NC48ads_A100_v4", 2),
    ]
    (cluster,) = read_gpu_footprints(
        "azure-native:containerservice:ManagedCluster",
        {
            "agentPoolProfiles": [
                {
                    "name": "gpu",
                    "type": "VirtualMachines",
                    "virtualMachinesProfile": {
                        "scale": {"manual": [{"size": "Standard_NC24ads_A100_v4", "count": 2}]}
                    },
                }
            ]
        },
    )
    assert (cluster.part, cluster.max_gpus) == ("gpu/Standard_NC24ads_A100_v4", 2)

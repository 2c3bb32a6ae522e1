"""A property of every reader: for any GPU machine of the catalog (its name in any case, GCP's
as a URL too) and any size, the footprint holds that machine and at most GPUs per machine x
the most machines the resource can run. Each recognized type has a builder here that writes
the resource as its SDK does; a new reader without one fails ``test_every_reader_is_built``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpufleet.capacity.footprints import (
    READERS,
    read_gpu_footprints,
    resolve_template,
    shipped_machine_catalog,
)
from gpufleet.capacity.footprints.aws_codebuild import GPU_COMPUTE_TYPES
from gpufleet.capacity.footprints.azure import SYNAPSE_GPUS_PER_NODE
from gpufleet.capacity.footprints.azure_container_apps import (
    DEDICATED_GPU_PROFILES,
    ENVIRONMENT,
    SERVERLESS_GPU_PROFILES,
)
from gpufleet.capacity.footprints.coverage import NAMED_MACHINE_TYPES, gpu_capable_table
from gpufleet.capacity.footprints.model import Machine
from gpufleet.clouds import Cloud, cloud_of_type
from gpufleet.planner.capabilities import CAPABILITIES
from gpufleet.planner.gcp_machines import GPU_OF_ACCELERATOR

Props = dict[str, Any]
# (props of a resource holding ``count`` machines, GPUs it can hold at most: None for a
# template, which holds machines but no count)
Builder = Callable[[str, Machine, int], tuple[Props, int | None]]
ACCELERATOR_OF_GPU = {gpu: api for api, gpu in GPU_OF_ACCELERATOR.items()}


def _gcp_accelerators(machine: Machine, type_key: str = "type", count_key: str = "count") -> Any:
    return [{type_key: ACCELERATOR_OF_GPU[machine.gpu_name], count_key: machine.gpus}]


def _gcp_vm(name: str, machine: Machine, _: int) -> tuple[Props, int | None]:
    return {"machineType": name, "guestAccelerators": _gcp_accelerators(machine)}, machine.gpus


def _gcp_spec(name: str, machine: Machine) -> Props:
    return {
        "machineType": name,
        "acceleratorType": ACCELERATOR_OF_GPU[machine.gpu_name].upper().replace("-", "_"),
        "acceleratorCount": machine.gpus,
    }


def _put(props: Props, key: str, value: Any) -> Props:
    """``props`` with ``value`` at ``key``, a dotted path."""
    *parents, last = key.split(".")
    node = props
    for step in parents:
        node = node.setdefault(step, {})
    node[last] = value
    return props


def _one(key: str) -> Builder:
    """A resource of one machine named at ``key`` (a dotted path)."""
    return lambda name, machine, _: (_put({}, key, name), machine.gpus)


def _counted(machine_key: str, count_key: str) -> Builder:
    """A resource of ``count`` machines, named at ``machine_key``, counted at ``count_key``
    (dotted paths)."""

    return lambda name, machine, count: (
        _put(_put({}, machine_key, name), count_key, count),
        count * machine.gpus,
    )


def _template(key: str) -> Builder:
    one = _one(key)
    return lambda name, machine, count: (one(name, machine, count)[0], None)


BUILDERS: dict[str, Builder] = {
    "aws:ec2/launchTemplate:LaunchTemplate": _template("instanceType"),
    "aws:ec2/launchConfiguration:LaunchConfiguration": _template("instanceType"),
    "aws:ec2/instance:Instance": _one("instanceType"),
    "aws:ec2/spotInstanceRequest:SpotInstanceRequest": _one("instanceType"),
    "aws:sagemaker/notebookInstance:NotebookInstance": _one("instanceType"),
    "aws:sagemaker/app:App": _one("resourceSpec.instanceType"),
    "aws:autoscaling/group:Group": lambda name, m, n: (
        {
            "maxSize": n,
            "mixedInstancesPolicy": {"launchTemplate": {"overrides": [{"instanceType": name}]}},
        },
        n * m.gpus,
    ),
    "aws:ec2/fleet:Fleet": lambda name, m, n: (
        {
            "launchTemplateConfigs": [{"overrides": [{"instanceType": name}]}],
            "targetCapacitySpecification": {"totalTargetCapacity": n},
        },
        n * m.gpus,
    ),
    "aws:ec2/spotFleetRequest:SpotFleetRequest": lambda name, m, n: (
        {"targetCapacity": n, "launchSpecifications": [{"instanceType": name}]},
        n * m.gpus,
    ),
    "aws:ec2/capacityReservation:CapacityReservation": _counted("instanceType", "instanceCount"),
    "aws:ec2/capacityBlockReservation:CapacityBlockReservation": _counted(
        "instanceType", "instanceCount"
    ),
    "aws:sagemaker/trainingJob:TrainingJob": _counted(
        "resourceConfig.instanceType", "resourceConfig.instanceCount"
    ),
    "gpufleet:aws:SageMakerSpotTraining": _counted("instance_type", "instance_count"),
    "aws:eks/nodeGroup:NodeGroup": lambda name, m, n: (
        {"instanceTypes": [name], "scalingConfig": {"desiredSize": 0, "maxSize": n}},
        n * m.gpus,
    ),
    "aws:batch/computeEnvironment:ComputeEnvironment": lambda name, m, n: (
        {"computeResources": {"type": "EC2", "instanceTypes": [name], "maxVcpus": n * m.vcpus}},
        n * m.gpus,
    ),
    "aws:sagemaker/endpointConfiguration:EndpointConfiguration": lambda name, m, n: (
        {"productionVariants": [{"instanceType": name, "initialInstanceCount": n}]},
        n * m.gpus,
    ),
    "aws:emr/cluster:Cluster": lambda name, m, n: (
        {
            "masterInstanceGroup": {"instanceType": "m5.xlarge"},
            "coreInstanceGroup": {"instanceType": name, "instanceCount": n},
        },
        n * m.gpus,
    ),
    "aws:emr/instanceGroup:InstanceGroup": _counted("instanceType", "instanceCount"),
    "aws:emr/instanceFleet:InstanceFleet": lambda name, m, n: (
        {"instanceTypeConfigs": [{"instanceType": name}], "targetSpotCapacity": n},
        n * m.gpus,
    ),
    "aws:sagemaker/hyperParameterTuningJob:HyperParameterTuningJob": lambda name, m, n: (
        {
            "config": {
                "resourceLimits": {"maxParallelTrainingJobs": n, "maxNumberOfTrainingJobs": n}
            },
            "trainingJobDefinition": {"resourceConfig": {"instanceType": name, "instanceCount": 1}},
        },
        n * m.gpus,
    ),
    "aws:elasticbeanstalk/environment:Environment": lambda name, m, n: (
        {
            "settings": [
                {"namespace": "aws:ec2:instances", "name": "InstanceTypes", "value": name},
                {"namespace": "aws:autoscaling:asg", "name": "MaxSize", "value": str(n)},
            ]
        },
        n * m.gpus,
    ),
    "aws:elasticbeanstalk/configurationTemplate:ConfigurationTemplate": lambda name, m, n: (
        {"settings": [{"namespace": "aws:ec2:instances", "name": "InstanceTypes", "value": name}]},
        None,
    ),
    "aws:codebuild/fleet:Fleet": lambda name, m, n: (
        {
            "environmentType": "LINUX_GPU_CONTAINER",
            "computeType": "CUSTOM_INSTANCE_TYPE",
            "computeConfiguration": {"instanceType": name},
            "baseCapacity": n,
        },
        n * m.gpus,
    ),
    "gcp:compute/instance:Instance": _gcp_vm,
    "gcp:compute/instanceFromTemplate:InstanceFromTemplate": _gcp_vm,
    "gcp:compute/instanceFromMachineImage:InstanceFromMachineImage": _gcp_vm,
    "gcp:compute/instanceTemplate:InstanceTemplate": lambda name, m, n: (
        _gcp_vm(name, m, n)[0],
        None,
    ),
    "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate": lambda name, m, n: (
        _gcp_vm(name, m, n)[0],
        None,
    ),
    "gcp:compute/instanceGroupManager:InstanceGroupManager": lambda name, m, n: (
        {"targetSize": n},
        n * m.gpus,
    ),
    "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager": lambda name, m, n: (
        {"targetSize": n},
        n * m.gpus,
    ),
    "gcp:compute/reservation:Reservation": lambda name, m, n: (
        {
            "specificReservation": {
                "count": n,
                "instanceProperties": {
                    "machineType": name,
                    "guestAccelerators": _gcp_accelerators(
                        m, "acceleratorType", "acceleratorCount"
                    ),
                },
            }
        },
        n * m.gpus,
    ),
    "gcp:container/nodePool:NodePool": lambda name, m, n: (
        {
            "location": "us-central1-a",
            "nodeCount": n,
            "nodeConfig": {"machineType": name, "guestAccelerators": _gcp_accelerators(m)},
        },
        n * m.gpus,
    ),
    "gcp:container/cluster:Cluster": lambda name, m, n: (
        {
            "location": "us-central1",
            "nodeLocations": ["us-central1-a", "us-central1-b"],
            "nodePools": [
                {
                    "name": "gpu",
                    "nodeCount": n,
                    "nodeConfig": {
                        "machineType": name,
                        "guestAccelerators": _gcp_accelerators(m),
                    },
                }
            ],
        },
        2 * n * m.gpus,
    ),
    "gcp:vertex/aiDeploymentResourcePool:AiDeploymentResourcePool": lambda name, m, n: (
        {
            "dedicatedResources": {
                "machineSpec": _gcp_spec(name, m),
                "minReplicaCount": 1,
                "maxReplicaCount": n,
            }
        },
        n * m.gpus,
    ),
    "gcp:vertex/aiPersistentResource:AiPersistentResource": lambda name, m, n: (
        {"resourcePools": [{"machineSpec": _gcp_spec(name, m), "replicaCount": str(n)}]},
        n * m.gpus,
    ),
    "gcp:dataproc/cluster:Cluster": lambda name, m, n: (
        {
            "clusterConfig": {
                "masterConfig": {"machineType": "n1-standard-4"},
                "workerConfig": {
                    "machineType": name,
                    "numInstances": n,
                    "accelerators": _gcp_accelerators(m, "acceleratorType", "acceleratorCount"),
                },
            }
        },
        n * m.gpus,
    ),
    "gcp:dataproc/workflowTemplate:WorkflowTemplate": lambda name, m, n: (
        {
            "placement": {
                "managedCluster": {
                    "clusterName": "run",
                    "config": {
                        "secondaryWorkerConfig": {
                            "machineType": name,
                            "numInstances": n,
                            "accelerators": _gcp_accelerators(
                                m, "acceleratorType", "acceleratorCount"
                            ),
                        }
                    },
                }
            }
        },
        n * m.gpus,
    ),
    "gcp:vertex/aiEndpointWithModelGardenDeployment:AiEndpointWithModelGardenDeployment": (
        lambda name, m, n: (
            {
                "deployConfig": {
                    "dedicatedResources": {
                        "machineSpec": _gcp_spec(name, m),
                        "minReplicaCount": 1,
                        "maxReplicaCount": n,
                    }
                }
            },
            n * m.gpus,
        )
    ),
    "gcp:workbench/instance:Instance": lambda name, m, n: (
        {
            "gceSetup": {
                "machineType": name,
                "acceleratorConfigs": [
                    {
                        "type": ACCELERATOR_OF_GPU[m.gpu_name].upper().replace("-", "_"),
                        "coreCount": str(m.gpus),
                    }
                ],
            }
        },
        m.gpus,
    ),
    "azure-native:compute:VirtualMachine": _one("hardwareProfile.vmSize"),
    "azure-native:compute:VirtualMachineScaleSet": _counted("sku.name", "sku.capacity"),
    "azure-native:compute:CapacityReservation": _counted("sku.name", "sku.capacity"),
    "azure-native:containerservice:AgentPool": _counted("vmSize", "count"),
    "azure-native:containerservice:ManagedCluster": lambda name, m, n: (
        {
            "agentPoolProfiles": [
                {"name": "sys", "vmSize": "Standard_D4s_v5", "count": 3},
                {"name": "gpu", "vmSize": name, "enableAutoScaling": True, "maxCount": n},
            ]
        },
        n * m.gpus,
    ),
    "azure-native:batch:Pool": _counted(
        "vmSize", "scaleSettings.fixedScale.targetLowPriorityNodes"
    ),
    "azure-native:machinelearningservices:Compute": lambda name, m, n: (
        {
            "properties": {
                "computeType": "AmlCompute",
                "properties": {"vmSize": name, "scaleSettings": {"maxNodeCount": n}},
            }
        },
        n * m.gpus,
    ),
    "azure-native:machinelearningservices:OnlineDeployment": _counted(
        "properties.instanceType", "sku.capacity"
    ),
}


# Types whose machines are a service's own shapes, not the catalog's (Container Apps workload
# profiles, Synapse node sizes): (props of a resource holding ``count`` of ``shape``, GPUs it
# holds at most), for each shape gpufleet knows.
ShapeBuilder = Callable[[str, int], tuple[Props, int]]


def _on_serverless(profile: str, props: Props) -> Props:
    return {
        **props,
        "workloadProfileName": "gpu",
        ENVIRONMENT: {"workloadProfiles": [{"name": "gpu", "workloadProfileType": profile}]},
    }


# CodeBuild's GPU compute types, by name: (GPU, count).
CODEBUILD_GPU_TYPES = {name: (gpu, count) for name, (gpu, count, _, _) in GPU_COMPUTE_TYPES.items()}

SHAPES: dict[str, tuple[dict[str, tuple[str, int]], ShapeBuilder]] = {
    # A CodeBuild project building on demand: at most its concurrent builds at once.
    "aws:codebuild/project:Project": (
        CODEBUILD_GPU_TYPES,
        lambda shape, n: (
            {
                "environment": {"type": "LINUX_GPU_CONTAINER", "computeType": shape},
                "concurrentBuildLimit": n,
            },
            n * CODEBUILD_GPU_TYPES[shape.upper()][1],
        ),
    ),
    "azure-native:app:ManagedEnvironment": (
        DEDICATED_GPU_PROFILES,
        lambda shape, n: (
            {
                "workloadProfiles": [
                    {"name": "gpu", "workloadProfileType": shape, "maximumCount": n}
                ]
            },
            n * DEDICATED_GPU_PROFILES[shape.lower()][1],
        ),
    ),
    "azure-native:app:ContainerApp": (
        SERVERLESS_GPU_PROFILES,
        lambda shape, n: (_on_serverless(shape, {"template": {"scale": {"maxReplicas": n}}}), n),
    ),
    "azure-native:app:Job": (
        SERVERLESS_GPU_PROFILES,
        lambda shape, n: (
            _on_serverless(
                shape,
                {
                    "configuration": {
                        "triggerType": "Event",
                        "replicaTimeout": 600,
                        "eventTriggerConfig": {"scale": {"maxExecutions": n}},
                    }
                },
            ),
            n,
        ),
    ),
    "azure-native:synapse:BigDataPool": (
        {size: ("", gpus) for size, gpus in SYNAPSE_GPUS_PER_NODE.items()},
        lambda shape, n: (
            {"nodeSizeFamily": "HardwareAcceleratedGPU", "nodeSize": shape, "nodeCount": n},
            n * SYNAPSE_GPUS_PER_NODE[shape.lower()],
        ),
    ),
}


def test_every_reader_is_built() -> None:
    """Every type with a reader of its own has a builder here; the rest are read by name."""
    built = set(BUILDERS) | set(SHAPES)
    read = set(READERS) - set(NAMED_MACHINE_TYPES)
    assert not read - built, (
        f"no builder for {sorted(read - built)}: add one to BUILDERS here (the resource as its "
        "SDK writes it, with a GPU machine and a count)"
    )
    assert not built - read, f"builders for types without a reader: {sorted(built - read)}"
    assert not set(BUILDERS) & set(SHAPES), "a type is in both BUILDERS and SHAPES"


@pytest.mark.parametrize("type_", sorted(SHAPES))
@settings(max_examples=30, deadline=None)
@given(
    pick=st.integers(min_value=0),
    count=st.integers(min_value=1, max_value=500),
    upper=st.booleans(),
)
def test_any_shape_of_a_service_any_count(type_: str, pick: int, count: int, upper: bool) -> None:
    known, build = SHAPES[type_]
    shapes = sorted(known)
    shape = shapes[pick % len(shapes)]
    props, most = build(shape.upper() if upper else shape, count)
    found = read_gpu_footprints(type_, props)
    assert found, (type_, props)
    for footprint in found:
        assert not footprint.undetermined, (footprint.undetermined, props)
    assert sum(f.max_gpus or 0 for f in found) == most


def _spelled(cloud: Cloud, machine: Machine, how: int) -> str:
    """The machine's name as a user may write it: any case, GCP's as a URL too."""
    name = machine.instance_type
    spellings = [name, name.upper(), name.lower()]
    if cloud == "gcp":
        spellings = [name, f"projects/p/zones/us-central1-a/machineTypes/{name}"]
    return spellings[how % len(spellings)]


def _gpu_machines(cloud: Cloud) -> list[Machine]:
    machines = shipped_machine_catalog().machines_of(cloud)
    if cloud == "gcp":  # builders attach GPUs by their accelerator name
        machines = [m for m in machines if m.gpu_name in ACCELERATOR_OF_GPU]
    return sorted(machines, key=lambda m: (m.instance_type, m.gpu_name, m.gpus))


@pytest.mark.parametrize("type_", sorted(BUILDERS))
@settings(max_examples=30, deadline=None)
@given(
    pick=st.integers(min_value=0),
    count=st.integers(min_value=1, max_value=500),
    how=st.integers(0, 5),
)
def test_any_gpu_machine_any_count(type_: str, pick: int, count: int, how: int) -> None:
    build = BUILDERS[type_]
    cloud = cloud_of_type(type_) or CAPABILITIES[type_.removeprefix("gpufleet:")].cloud
    machines = _gpu_machines(cloud)
    machine = machines[pick % len(machines)]
    props, most = build(_spelled(cloud, machine, how), machine, count)
    found = read_gpu_footprints(type_, props)
    if type_.startswith("gcp:compute/") and "GroupManager" in type_:
        template = read_gpu_footprints(
            "gcp:compute/instanceTemplate:InstanceTemplate",
            _gcp_vm(machine.instance_type, machine, 1)[0],
        )
        found = tuple(resolve_template(f, list(template)) for f in found)
    assert found, (type_, props)
    for footprint in found:
        assert not footprint.undetermined, (footprint.undetermined, props)
    held = [m for f in found for m in f.machines]
    # Under its own name, or a service's name for it (``codebuild.g5.xlarge``).
    assert any(
        m.instance_type.lower()
        in (machine.instance_type.lower(), f"codebuild.{machine.instance_type}")
        and m.gpus == machine.gpus
        for m in held
    ), (held, machine)
    if most is None:
        assert all(f.is_template for f in found)
    else:
        assert sum(f.max_gpus or 0 for f in found) == most


def test_named_types_report_a_gpu_machine_they_name() -> None:
    """A type read by name holds a GPU machine named at any of its machine paths."""
    table = gpu_capable_table()
    for type_ in NAMED_MACHINE_TYPES:
        paths = [p for p in table[type_] if "ccelerator" not in p and "gpu" not in p.lower()]
        if not paths:
            continue
        cloud = cloud_of_type(type_)
        assert cloud is not None
        machine = _gpu_machines(cloud)[0]
        props: Props = {}
        node = props
        *parents, last = paths[0].split(".")
        for step in parents:
            node = node.setdefault(step, {})
        node[last] = machine.instance_type
        (found,) = read_gpu_footprints(type_, props)
        assert [m.gpus for m in found.machines] == [machine.gpus], type_
        assert found.max_units is None and found.undetermined, type_

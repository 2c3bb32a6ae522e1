"""Which resource types can hold GPUs: the table generated from the SDKs matches them, and
every type in it is classified — read by a reader of its own, read by name, or holding no GPUs
for a stated reason — so a provider upgrade that adds a way to get a GPU fails here until
someone decides how to read it."""

from __future__ import annotations

import subprocess
import sys

from gpufleet.capacity.footprints import READERS, read_gpu_footprints
from gpufleet.capacity.footprints.coverage import (
    NAMED_MACHINE_TYPES,
    NOT_GPU_CAPACITY,
    gpu_capable_table,
)
from tests.helpers import ROOT


def test_gpu_capable_table_matches_the_installed_sdks() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "generate_gpu_capable_types.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_every_gpu_capable_type_is_classified() -> None:
    table = gpu_capable_table()
    unclassified = sorted(t for t in table if t not in READERS and t not in NOT_GPU_CAPACITY)
    assert not unclassified, f"classify in capacity/footprints/coverage.py: {unclassified}"
    assert not set(READERS) & set(NOT_GPU_CAPACITY)
    # A reason or a by-name reading for a type the SDKs no longer have is stale.
    assert not sorted(set(NOT_GPU_CAPACITY) - set(table))
    assert not sorted(set(NAMED_MACHINE_TYPES) - set(table))
    assert all(reason.strip() for reason in NOT_GPU_CAPACITY.values())


def test_the_table_finds_the_ways_to_a_gpu_the_issue_names() -> None:
    """The generator's patterns reach nested node configs, machine specs and requirements."""
    table = gpu_capable_table()
    for type_ in (
        "aws:eks/nodeGroup:NodeGroup",
        "aws:batch/computeEnvironment:ComputeEnvironment",
        "aws:sagemaker/endpointConfiguration:EndpointConfiguration",
        "aws:sagemaker/notebookInstance:NotebookInstance",
        "aws:ec2/spotInstanceRequest:SpotInstanceRequest",
        "aws:ec2/launchConfiguration:LaunchConfiguration",
        "gcp:container/nodePool:NodePool",
        "gcp:container/cluster:Cluster",
        "gcp:vertex/aiDeploymentResourcePool:AiDeploymentResourcePool",
        "gcp:workbench/instance:Instance",
        "azure-native:compute:VirtualMachine",
        "azure-native:containerservice:AgentPool",
        "azure-native:containerservice:ManagedCluster",
        "azure-native:machinelearningservices:Compute",
    ):
        assert type_ in table and type_ in READERS, type_
    assert (
        "mixedInstancesPolicy.launchTemplate.overrides.instanceRequirements"
        in table["aws:autoscaling/group:Group"]
    )


def test_a_type_read_by_name_is_a_gpu_resource_of_undetermined_size() -> None:
    (emr,) = read_gpu_footprints(
        "aws:emr/cluster:Cluster",
        {"coreInstanceGroup": {"instanceType": "P3.8XLARGE", "instanceCount": 4}},
    )
    assert [(m.instance_type, m.gpus) for m in emr.machines] == [("p3.8xlarge", 4)]
    assert emr.max_units is None
    assert any("reads no size" in u for u in emr.undetermined)
    # A service's own name for an EC2 machine: its GPUs, not its price.
    (fleet,) = read_gpu_footprints(
        "aws:appstream/fleet:Fleet", {"instanceType": "stream.graphics.g4dn.xlarge"}
    )
    assert fleet.machines[0].gpus == 1
    # Accelerators asked for, in any shape: a count, a name, a spec.
    for type_, props in (
        ("gcp:cloudrunv2/service:Service", {"template": {"nodeSelector": {"accelerator": "l4"}}}),
        (
            "azure-native:containerinstance:ContainerGroup",
            {"containers": [{"resources": {"requests": {"gpu": {"count": 1, "sku": "V100"}}}}]},
        ),
    ):
        (found,) = read_gpu_footprints(type_, props)
        assert any("asks for accelerators" in u for u in found.undetermined), type_
    # CPU machines and explicit "none" are no GPU resource.
    assert (
        read_gpu_footprints(
            "aws:emr/cluster:Cluster", {"coreInstanceGroup": {"instanceType": "m5.xlarge"}}
        )
        == ()
    )
    assert (
        read_gpu_footprints(
            "gcp:cloudrunv2/service:Service",
            {"template": {"nodeSelector": {"accelerator": ""}, "gpuZonalRedundancyDisabled": True}},
        )
        == ()
    )

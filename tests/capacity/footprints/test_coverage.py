"""Which resource types can hold GPUs, and which size capacity: the tables generated from the
SDKs match them, and every type in them is classified — read by a reader of its own, read by
name, not read (a sizer whose GPU target is then undetermined), or holding or sizing no GPUs for
a stated reason — so a provider upgrade that adds a way to get a GPU, or to size one, fails here
until someone decides how to read it."""

from __future__ import annotations

import re
import subprocess
import sys

from gpufleet.capacity.footprints import READERS, SCALERS, read_gpu_footprints
from gpufleet.capacity.footprints.coverage import (
    DOES_NOT_SIZE_GPU,
    NAMED_MACHINE_TYPES,
    NOT_GPU_CAPACITY,
    READ_THROUGH_WHAT_NAMES_IT,
    UNREAD_SIZERS,
    gpu_capable_table,
    readme_table,
    sizing_table,
    unread_sizing_types,
    ways_to_a_gpu,
)
from gpufleet.capacity.taggable import taggable_table
from tests.helpers import ROOT


def test_gpu_capable_and_sizing_tables_match_the_installed_sdks() -> None:
    """The script checks both tables it writes: a stale one fails here."""
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
    assert not unclassified, (
        f"classify {unclassified}: a reader of its own (capacity/footprints/<cloud>.py), or in "
        "capacity/footprints/coverage.py (read by name, or why it holds no GPUs)"
    )
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
    (gamelift,) = read_gpu_footprints(
        "aws:gamelift/fleet:Fleet", {"ec2InstanceType": "P3.8XLARGE", "name": "game"}
    )
    assert [(m.instance_type, m.gpus) for m in gamelift.machines] == [("p3.8xlarge", 4)]
    assert gamelift.max_units is None
    assert any("reads no size" in u for u in gamelift.undetermined)
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


def test_every_sizing_type_is_classified() -> None:
    table = sizing_table()
    explicit = {
        "read through what names it": set(READ_THROUGH_WHAT_NAMES_IT),
        "not read": set(UNREAD_SIZERS),
        "sizes no GPUs": set(DOES_NOT_SIZE_GPU),
    }
    read = set(SCALERS) | set(READERS)
    unclassified = sorted(t for t in table if t not in read.union(*explicit.values()))
    assert not unclassified, f"classify in capacity/footprints/coverage.py: {unclassified}"
    for what, listed in explicit.items():
        # A type read by a scaler or a reader of its own is not also listed; a listed type the
        # SDKs no longer have is stale.
        assert not sorted(listed & read), (what, sorted(listed & read))
        assert not sorted(listed - set(table)), (what, sorted(listed - set(table)))
    # Each type in one list only.
    lists = list(explicit.values())
    assert all(not a & b for i, a in enumerate(lists) for b in lists[i + 1 :])
    assert len(UNREAD_SIZERS) == len(set(UNREAD_SIZERS))
    assert all(reason.strip() for reason in DOES_NOT_SIZE_GPU.values())
    # What nothing reads is exactly what is listed as not read.
    assert unread_sizing_types() == frozenset(UNREAD_SIZERS)


def test_the_sizing_table_finds_the_actuators_the_issue_names() -> None:
    """Its patterns reach top-level sizes, nested ones and capacity objects' bounds, and leave
    out the GPU-capable types (read as capacity themselves)."""
    table = sizing_table()
    expected = {
        "aws:appautoscaling/target:Target": "maxCapacity",
        "aws:autoscaling/schedule:Schedule": "maxSize",
        "aws:emr/managedScalingPolicy:ManagedScalingPolicy": "computeLimits.maximumCapacityUnits",
        "gcp:compute/resizeRequest:ResizeRequest": "resizeBy",
        "gcp:compute/autoscaler:Autoscaler": "autoscalingPolicy.maxReplicas",
        "gcp:dataproc/autoscalingPolicy:AutoscalingPolicy": "workerConfig.maxInstances",
        "azure-native:monitor:AutoscaleSetting": "profiles.capacity.maximum",
        "azure-native:standbypool:StandbyVirtualMachinePool": "elasticityProfile.maxReadyCapacity",
        "azure-native:app:ManagedEnvironment": "workloadProfiles.maximumCount",
    }
    for type_, path in expected.items():
        assert path in table.get(type_, ()), (type_, table.get(type_))
    assert not set(table) & set(gpu_capable_table())
    # Message sizes and retry counts are not capacity.
    assert "aws:sqs/queue:Queue" not in table and "azure-native:servicebus:Queue" not in table


def test_the_docs_list_every_way_to_a_gpu_with_its_reader_or_why_it_fails_closed() -> None:
    """docs/gpu-coverage.md's table is the classification, type for type: a GPU-capable or
    sizing type with neither a reader nor a verdict could not be listed (the classification
    tests fail first), and one listed otherwise than classified is a stale page."""
    page = (ROOT / "docs" / "gpu-coverage.md").read_text(encoding="utf-8")
    assert readme_table() in page, "run scripts/generate_gpu_capable_types.py"
    ways = {w.type: w for w in ways_to_a_gpu()}
    assert set(gpu_capable_table()) | set(sizing_table()) <= set(ways)
    for way in ways.values():
        assert way.how.strip(), way
        if way.type in gpu_capable_table():
            assert way.verdict in ("read", "fails closed", "no GPUs"), way
    read = [w for w in ways.values() if w.verdict == "read"]
    assert all(w.type in READERS for w in read)


def test_the_docs_type_counts_are_the_tables() -> None:
    """The docs say how many types each generated table holds; those figures are the
    tables' own, so an SDK upgrade that regenerates a table fails here until the docs say
    the new count."""
    readme = " ".join(
        (ROOT / "docs" / page).read_text(encoding="utf-8")
        for page in ("gpu-coverage.md", "policies.md")
    )
    said = {
        "gpu-capable": r"instance requirements \(([\d,]+) types for\s+the pinned SDKs\)",
        "sizing": r"a scalable dimension \(([\d,]+) types:",
        "taggable": r"taggable_types\.json` \(([\d,]+) types for the pinned SDKs",
    }
    counts = {
        "gpu-capable": len(gpu_capable_table()),
        "sizing": len(sizing_table()),
        "taggable": len(taggable_table()),
    }
    for table, pattern in said.items():
        found = re.search(pattern, readme)
        assert found is not None, f"the docs no longer say how many {table} types there are"
        assert int(found[1].replace(",", "")) == counts[table], (table, found[1], counts[table])

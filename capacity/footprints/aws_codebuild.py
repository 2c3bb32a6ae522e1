"""AWS CodeBuild reserved capacity fleets, machines kept running for builds, and projects that
build on demand in the GPU environment.

A fleet holds ``baseCapacity`` machines, up to its ``scalingConfiguration.maxCapacity`` when it
scales. Its machines hold GPUs in the ``LINUX_GPU_CONTAINER`` environment: a compute type's
GPUs are CodeBuild's, as its documentation gives them (below); a ``CUSTOM_INSTANCE_TYPE`` runs
the EC2 type ``computeConfiguration.instanceType`` names; for ``ATTRIBUTE_BASED_COMPUTE``
CodeBuild picks the machine, so its GPUs are not known. CodeBuild bills its own rates, which
gpufleet's catalog does not hold: a fleet is sized, and unpriced with that reason.
"""

from __future__ import annotations

from dataclasses import replace

from gpufleet import resource_types as types
from gpufleet.capacity.footprints.aws import _region
from gpufleet.capacity.footprints.model import GpuFootprint, Machine
from gpufleet.capacity.footprints.reading import Reading, reads, shown

GPU_ENVIRONMENT = "LINUX_GPU_CONTAINER"
# GPUs of CodeBuild's compute types in its GPU environment, from the CodeBuild API reference
# (ProjectEnvironment / Fleet ``computeType``: "For environment type LINUX_GPU_CONTAINER, you
# can use up to 16 GiB memory, 4 vCPUs, and 1 NVIDIA A10G Tensor Core GPU" for
# BUILD_GENERAL1_SMALL; "up to 255 GiB memory, 32 vCPUs, and 4 NVIDIA Tesla V100 GPUs" for
# BUILD_GENERAL1_LARGE; https://docs.aws.amazon.com/codebuild/latest/APIReference/API_Fleet.html)
# and the user guide's "Build environment compute modes and types"
# (https://docs.aws.amazon.com/codebuild/latest/userguide/build-env-ref-compute-types.html).
# Other compute types are not documented with GPUs: undetermined.
GPU_COMPUTE_TYPES: dict[str, tuple[str, int, float, float]] = {
    "BUILD_GENERAL1_SMALL": ("A10G", 1, 4.0, 16.0),
    "BUILD_GENERAL1_LARGE": ("V100", 4, 32.0, 255.0),
}
UNPRICED_NOTE = "CodeBuild bills its own rates per build minute, which gpufleet's catalog lacks"


def _machine(r: Reading) -> Machine | None:
    compute = r.get("computeType")
    if r.unreadable(compute, "computeType"):
        return None
    if not isinstance(compute, str):
        r.undetermined.append(f"computeType {shown(compute)} is not a compute type")
        return None
    name = compute.strip().upper()
    if name == "CUSTOM_INSTANCE_TYPE":
        ec2 = r.machine(
            "aws",
            r.get("computeConfiguration", "instanceType"),
            "computeConfiguration.instanceType",
        )
        # Its own name: CodeBuild's price for the machine is not EC2's.
        return None if ec2 is None else replace(ec2, instance_type=f"codebuild.{ec2.instance_type}")
    if name in GPU_COMPUTE_TYPES:
        gpu, count, vcpus, memory = GPU_COMPUTE_TYPES[name]
        return Machine("aws", f"codebuild.{name.lower()}.gpu", gpu, count, vcpus, memory)
    r.undetermined.append(
        f"computeType {name} in {GPU_ENVIRONMENT}: CodeBuild documents no GPUs for it "
        "(it picks the machine for ATTRIBUTE_BASED_COMPUTE)"
    )
    return None


@reads(types.AWS_CODEBUILD_FLEET)
def fleet(r: Reading) -> GpuFootprint | None:
    """A CodeBuild fleet: base capacity up to its scaling maximum of its GPU compute type's machine
    (unpriced: no catalog rate)."""
    environment = r.get("environmentType")
    if r.unreadable(environment, "environmentType"):
        return r.footprint(cloud="aws", kind="CodeBuild fleet", is_template=False)
    gpu_environment = str(environment).strip().upper() == GPU_ENVIRONMENT
    if gpu_environment:
        machine = _machine(r)
    elif str(r.get("computeType")).strip().upper() == "CUSTOM_INSTANCE_TYPE":
        # A GPU machine in another environment is still a GPU machine.
        machine = _machine(r)
    else:
        return None
    base = r.count("baseCapacity", where="baseCapacity")
    scaled = r.get("scalingConfiguration", "maxCapacity")
    most = base
    if scaled is not None:
        top = r.number(scaled, "scalingConfiguration.maxCapacity", None, whole=True)
        most = None if top is None or base is None else max(top, base)
    return r.footprint(
        cloud="aws",
        kind="CodeBuild fleet",
        is_template=False,
        machines=[machine],
        expected_units=base,
        max_units=most,
        market="on_demand",
        region=_region(r),
        notes=(UNPRICED_NOTE,),
    )


@reads(types.AWS_CODEBUILD_PROJECT)
def project(r: Reading) -> GpuFootprint | None:
    """A CodeBuild project building in the GPU environment on demand: up to its concurrent
    build limit of its compute type's machine, for the builds it runs (unpriced: no catalog
    rate); on a fleet, the fleet holds the machines."""
    environment = r.get("environment")
    if r.unreadable(environment, "environment") or not isinstance(environment, dict):
        return None
    env = r.within(environment)
    kind = env.get("type")
    if env.unreadable(kind, "environment.type"):
        r.absorb(env)
        return r.footprint(cloud="aws", kind="CodeBuild project", is_template=False)
    if str(kind).strip().upper() != GPU_ENVIRONMENT or env.get("fleet", "fleetArn") is not None:
        return None
    machine = _machine(env)
    r.absorb(env)
    limit = r.get("concurrentBuildLimit")
    if limit is None:
        r.undetermined.append(
            "it sets no concurrentBuildLimit: as many GPU builds at once as the account's limit"
        )
    most = r.number(limit, "concurrentBuildLimit", None, whole=True, positive=True)
    return r.footprint(
        cloud="aws",
        kind="CodeBuild project",
        is_template=False,
        machines=[machine],
        expected_units=0.0,
        max_units=most,
        market="on_demand",
        region=_region(r),
        outside_stack=True,  # builds start outside the stack, per build minute
        notes=(UNPRICED_NOTE,),
    )

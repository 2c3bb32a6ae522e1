"""Which image a GPU instance boots: the one given, or the latest AWS Deep Learning AMI.

AWS publishes the current DLAMI ids as public SSM parameters named
``/aws/service/deeplearning/ami/<architecture>/<ami type>/latest/ami-id``
(docs.aws.amazon.com/dlami/latest/devguide/find-dlami-id.html); the Neuron DLAMI for
Inferentia/Trainium publishes ``/aws/service/neuron/dlami/multi-framework/ubuntu-22.04/latest/
image_id``. Resolving through SSM at deploy time keeps drivers current without hard-coding ids
per region. One AMI boots every instance type of a fleet, so types must share a CPU architecture
(Graviton g5g is arm64) and an accelerator stack (CUDA or Neuron).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated

import pulumi
import pulumi_aws as aws
from pydantic import AfterValidator

from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.gpus import GPUS

DLAMI_PARAMETERS: dict[tuple[str, str], str] = {
    ("cuda", "x86_64"): "/aws/service/deeplearning/ami/x86_64/"
    "base-oss-nvidia-driver-gpu-ubuntu-22.04/latest/ami-id",
    ("cuda", "arm64"): "/aws/service/deeplearning/ami/arm64/"
    "base-oss-nvidia-driver-gpu-ubuntu-22.04/latest/ami-id",
    ("neuron", "x86_64"): "/aws/service/neuron/dlami/multi-framework/ubuntu-22.04/latest/image_id",
}
ARM64_FAMILIES = frozenset({"g5g"})
AMI_ID = re.compile(r"ami-[0-9a-f]{8,17}")


def _ami_id(value: str) -> str:
    if not AMI_ID.fullmatch(value):
        raise ValueError(f"{value!r} is not an AMI id (ami-...)")
    return value


AmiId = Annotated[str, AfterValidator(_ami_id)]


def architecture(instance_type: str) -> str:
    return "arm64" if instance_type.split(".", 1)[0] in ARM64_FAMILIES else "x86_64"


def accelerator_stack(gpu_name: str) -> str:
    vendor = GPUS[gpu_name].vendor
    return {"NVIDIA": "cuda", "AWS": "neuron"}.get(vendor, vendor.lower())


def dlami_parameter(instance_types: Sequence[str]) -> str:
    """The SSM parameter of the DLAMI that boots all of ``instance_types``; ValueError if none."""
    catalog = load_catalog()
    kinds = set()
    for itype in instance_types:
        shape = catalog.shape("aws", itype)
        if shape is None:
            raise ValueError(f"{itype} is not an AWS GPU instance type in the catalog")
        kinds.add((accelerator_stack(shape.gpu_name), architecture(itype), shape.gpu_name))
    stacks = {(stack, arch) for stack, arch, _ in kinds}
    if len(stacks) > 1:
        described = ", ".join(sorted(f"{stack}/{arch}" for stack, arch in stacks))
        raise ValueError(
            f"instance types need different images ({described}); split them or pass ami_id"
        )
    (key,) = stacks
    if key not in DLAMI_PARAMETERS:
        gpu = sorted(g for *_, g in kinds)[0]
        raise ValueError(f"no public Deep Learning AMI for {gpu} ({key[1]}); pass ami_id")
    return DLAMI_PARAMETERS[key]


def image_id(
    ami_id: str | None, instance_types: Sequence[str], parent: pulumi.Resource
) -> pulumi.Input[str]:
    if ami_id is not None:
        return ami_id
    parameter = aws.ssm.get_parameter_output(
        name=dlami_parameter(instance_types), opts=pulumi.InvokeOutputOptions(parent=parent)
    )
    return parameter.value

"""GCP machine types and their GPUs: the one home for which GPUs a machine type carries, which it
may have attached, and what GCP's API calls each accelerator.

Accelerator-optimized machines carry their GPUs: the machine type alone says what you get
(``a2-highgpu-4g`` = 4 A100, ``g2-standard-24`` = 2 L4), and asking for ``guest_accelerators``
on them is an error. N1 machines take attachable GPUs in counts and with vCPU caps GCP
publishes per GPU (cloud.google.com/compute/docs/gpus#n1-gpus): one V100 allows at most 12
vCPUs, eight allow 96. Other machine types take no GPUs. Accelerator API names are from
cloud.google.com/compute/docs/gpus.

GCP sells some GPUs under SKU names of its own (``H100-MEGA`` is the H100 of a3-megagpu
machines); tables here are keyed by SKU, and ``gpus.normalize_gpu_name`` gives the chip.
Everything read the other way (an API name to its GPU, the GPUs N1 attaches) is derived.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpufleet.planner.gpus import normalize_gpu_name
from gpufleet.pricing_models import Commitment

# SKU -> the accelerator type the Compute API takes (guest accelerators, reservations).
ACCELERATOR_TYPES: dict[str, str] = {
    "T4": "nvidia-tesla-t4",
    "V100": "nvidia-tesla-v100",
    "P100": "nvidia-tesla-p100",
    "P4": "nvidia-tesla-p4",
    "A100": "nvidia-tesla-a100",
    "A100-80GB": "nvidia-a100-80gb",
    "H100": "nvidia-h100-80gb",
    "H100-MEGA": "nvidia-h100-mega-80gb",
    "H200": "nvidia-h200-141gb",
    "L4": "nvidia-l4",
}
# Accelerator type -> the GPU it is (derived).
GPU_OF_ACCELERATOR: dict[str, str] = {
    api_name: normalize_gpu_name(sku) or sku for sku, api_name in ACCELERATOR_TYPES.items()
}

# Accelerator-optimized families -> the SKU they carry; the count is in the name (-<n>g).
BUILT_IN_FAMILIES: dict[str, str] = {
    "a2-highgpu": "A100",
    "a2-megagpu": "A100",
    "a2-ultragpu": "A100-80GB",
    "a3-highgpu": "H100",
    "a3-edgegpu": "H100",
    "a3-megagpu": "H100-MEGA",
    "a3-ultragpu": "H200",
}
_BUILT_IN = re.compile(rf"^(?P<family>{'|'.join(BUILT_IN_FAMILIES)})-(?P<count>\d+)g(-nolssd)?$")
# G2 machines carry L4s; how many depends on the vCPU count.
G2_L4_COUNT: dict[int, int] = {4: 1, 8: 1, 12: 1, 16: 1, 32: 1, 24: 2, 48: 4, 96: 8}

# SKU N1 machines may attach -> {GPU count: most vCPUs an N1 machine may have with that many}.
N1_VCPU_LIMITS: dict[str, dict[int, int]] = {
    "T4": {1: 48, 2: 48, 4: 96},
    "V100": {1: 12, 2: 24, 4: 48, 8: 96},
    "P100": {1: 16, 2: 32, 4: 96},
    "P4": {1: 24, 2: 48, 4: 96},
}
N1_GPUS = frozenset(N1_VCPU_LIMITS)
_N1 = re.compile(r"n1-(standard|highmem|highcpu)-(\d+)")

# Series whose VMs a compact placement policy can place together (cloud.google.com/compute/docs/
# instances/placement-policies-overview): of the GPU machines, A2, A3 and G2.
COMPACT_PLACEMENT_NAMES = ("a2", "a3", "g2")
COMPACT_PLACEMENT_SERIES = re.compile(rf"({'|'.join(COMPACT_PLACEMENT_NAMES)})-")
# The series whose machine types carry their GPUs, for people reading an error (A2, A3, G2).
BUILT_IN_SERIES = ", ".join(
    sorted({family.split("-")[0].upper() for family in BUILT_IN_FAMILIES} | {"G2"})
)
# Series built for tightly coupled multi-host training (100-3,200 Gbit/s, GPUDirect-TCPX/TCPXO on
# A3; cloud.google.com/compute/docs/accelerator-optimized-machines): A2 and A3 High, Mega,
# Ultra. A3 Edge is a serving shape; G2 and N1 hosts are not built for it either.
CLUSTER_NETWORKING_SERIES = re.compile(r"^(a2-(high|mega|ultra)gpu|a3-(high|mega|ultra)gpu)-")

# Resource-based committed-use discounts (the Compute API's ``Commitment``): the plan of each
# term, and the commitment type that pays for a machine series (``Commitment.Type``: N1 is
# GENERAL_PURPOSE, A2 ACCELERATOR_OPTIMIZED; cloud.google.com/compute/docs/instances/
# committed-use-discounts-overview). A series not listed has no commitment gpufleet declares.
COMMITMENT_PLANS: dict[Commitment, str] = {"1y": "TWELVE_MONTH", "3y": "THIRTY_SIX_MONTH"}
TERM_OF_COMMITMENT_PLAN: dict[str, Commitment] = {
    plan: term for term, plan in COMMITMENT_PLANS.items()
}
COMMITMENT_TYPES: dict[str, str] = {
    "n1-": "GENERAL_PURPOSE",
    "a2-": "ACCELERATOR_OPTIMIZED",
    "a3-highgpu-": "ACCELERATOR_OPTIMIZED_A3",
    "a3-edgegpu-": "ACCELERATOR_OPTIMIZED_A3",
    "a3-megagpu-": "ACCELERATOR_OPTIMIZED_A3_MEGA",
    "a3-ultragpu-": "ACCELERATOR_OPTIMIZED_A3_ULTRA",
    "g2-": "GRAPHICS_OPTIMIZED",
}
# The type of a commitment that names none.
DEFAULT_COMMITMENT_TYPE = COMMITMENT_TYPES["n1-"]
# A commitment counts memory in MB (MiB, 1,024 to the GiB), in steps of 256.
COMMITMENT_MB_PER_GIB = 1024
COMMITMENT_MEMORY_STEP_MB = 256


def series_of_commitment(kind: str | None) -> str:
    """The commitment type a commitment's ``type`` says: the API's default when it names none."""
    kind = (kind or "").strip()
    return kind if kind and kind != "TYPE_UNSPECIFIED" else DEFAULT_COMMITMENT_TYPE


def commitment_type(machine_type: str) -> str | None:
    """The commitment type that pays for ``machine_type``; None for a series not listed."""
    name = machine_type.strip().lower()
    found = (kind for series, kind in COMMITMENT_TYPES.items() if name.startswith(series))
    return next(found, None)


@dataclass(frozen=True)
class MachineGpus:
    gpu_name: str
    count: int
    accelerator_type: str
    # Whether the GPUs are attached (N1) rather than built into the machine type.
    attached: bool


def built_in_gpus(machine_type: str) -> tuple[str, int] | None:
    """The GPU SKU and count built into an accelerator-optimized machine type, if it is one."""
    match = _BUILT_IN.match(machine_type)
    if match:
        return BUILT_IN_FAMILIES[match["family"]], int(match["count"])
    g2 = re.fullmatch(r"g2-standard-(\d+)", machine_type)
    if g2 and int(g2[1]) in G2_L4_COUNT:
        return "L4", G2_L4_COUNT[int(g2[1])]
    return None


def takes_attached_gpus(machine_type: str) -> bool:
    """Whether GPUs come attached to this machine type (N1) rather than with it."""
    return _N1.fullmatch(machine_type) is not None


def machine_gpus(
    machine_type: str, gpu: str | None = None, gpu_count: int | None = None
) -> MachineGpus:
    """What ``machine_type`` (plus attached ``gpu`` x ``gpu_count``) carries; ValueError if GCP
    would refuse the pairing."""
    built_in = built_in_gpus(machine_type)
    if built_in is not None:
        sku, count = built_in
        if gpu is not None or gpu_count is not None:
            raise ValueError(
                f"{machine_type} carries {count} {normalize_gpu_name(sku)} already; "
                "do not attach gpu"
            )
        return MachineGpus(normalize_gpu_name(sku) or sku, count, ACCELERATOR_TYPES[sku], False)
    n1 = _N1.fullmatch(machine_type)
    attachable = ", ".join(N1_VCPU_LIMITS)
    if n1 is None:
        raise ValueError(
            f"{machine_type} takes no GPUs: use a machine type of a series with built-in GPUs "
            f"({BUILT_IN_SERIES}), or N1 with {attachable}"
        )
    if gpu is None or gpu_count is None:
        raise ValueError(f"{machine_type} needs gpu and gpu_count ({attachable})")
    name = normalize_gpu_name(gpu)
    if name is None or name not in N1_VCPU_LIMITS:
        raise ValueError(f"N1 machines take {attachable}, not {gpu}")
    limits = N1_VCPU_LIMITS[name]
    if gpu_count not in limits:
        raise ValueError(f"{name} attaches in counts of {sorted(limits)}, not {gpu_count}")
    vcpus = int(n1[2])
    if vcpus > limits[gpu_count]:
        raise ValueError(
            f"{machine_type} has {vcpus} vCPUs; with {gpu_count} {name} GCP allows at most "
            f"{limits[gpu_count]}"
        )
    return MachineGpus(name, gpu_count, ACCELERATOR_TYPES[name], True)

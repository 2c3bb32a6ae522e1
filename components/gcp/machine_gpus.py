"""Which GPUs a GCP machine type has, and which it may have attached.

Accelerator-optimized machines carry their GPUs: the machine type alone says what you get
(``a2-highgpu-4g`` = 4 A100), and asking for ``guest_accelerators`` on them is an error. N1
machines take attachable GPUs — T4, V100, P100, P4 — in counts and with vCPU caps GCP publishes
per GPU (cloud.google.com/compute/docs/gpus#n1-gpus): for instance one V100 allows at most 12
vCPUs, eight allow 96. Other machine types take no GPUs. API names of the accelerator types are
from cloud.google.com/compute/docs/gpus.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpufleet.planner.catalog_build import gcp_built_in_gpus
from gpufleet.planner.gpus import normalize_gpu_name

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
# GPU -> {GPU count: most vCPUs an N1 machine may have with that many}.
N1_VCPU_LIMITS: dict[str, dict[int, int]] = {
    "T4": {1: 48, 2: 48, 4: 96},
    "V100": {1: 12, 2: 24, 4: 48, 8: 96},
    "P100": {1: 16, 2: 32, 4: 96},
    "P4": {1: 24, 2: 48, 4: 96},
}
_N1 = re.compile(r"n1-(standard|highmem|highcpu)-(\d+)")


@dataclass(frozen=True)
class MachineGpus:
    gpu_name: str
    count: int
    accelerator_type: str
    # Whether the GPUs are attached (N1) rather than built into the machine type.
    attached: bool


def machine_gpus(
    machine_type: str, gpu: str | None = None, gpu_count: int | None = None
) -> MachineGpus:
    """What ``machine_type`` (plus attached ``gpu`` x ``gpu_count``) carries; ValueError if GCP
    would refuse the pairing."""
    built_in = gcp_built_in_gpus(machine_type)
    if built_in is not None:
        if gpu is not None or gpu_count is not None:
            sku, count = built_in
            raise ValueError(
                f"{machine_type} carries {count} {normalize_gpu_name(sku)} already; "
                "do not attach gpu"
            )
        sku, count = built_in
        return MachineGpus(normalize_gpu_name(sku) or sku, count, ACCELERATOR_TYPES[sku], False)
    n1 = _N1.fullmatch(machine_type)
    if n1 is None:
        raise ValueError(
            f"{machine_type} takes no GPUs: use an A2, A3 or G2 machine type, or N1 with "
            f"{', '.join(N1_VCPU_LIMITS)}"
        )
    if gpu is None or gpu_count is None:
        raise ValueError(f"{machine_type} needs gpu and gpu_count ({', '.join(N1_VCPU_LIMITS)})")
    name = normalize_gpu_name(gpu)
    if name not in N1_VCPU_LIMITS:
        raise ValueError(f"N1 machines take {', '.join(N1_VCPU_LIMITS)}, not {gpu}")
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

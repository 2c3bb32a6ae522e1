"""The GPU vocabulary: one canonical name per accelerator, with the facts the planner needs.

Every cloud spells GPUs its own way (GCP's SKU ``H100-MEGA`` is the same H100 as AWS's p5), and
users type ``a100`` or ``A100-40GB``. Everything in gpufleet — catalog, spec, planner — goes through
``normalize_gpu_name`` so one name means one chip.

``memory_gib`` is the nominal per-GPU memory the vendor and the clouds advertise (an L4 is "24 GB").
The VRAM estimator compares its estimate with ``usable_memory_gib`` (nominal less a margin for the
CUDA context, allocator fragmentation and ECC), so nominal figures here do not overstate what fits.

``auto`` marks the GPUs the planner may pick on its own when a workload asks by memory or by model
size: NVIDIA data-centre GPUs that current CUDA/PyTorch builds support (compute capability >= 6.0,
see https://pytorch.org/get-started/ and NVIDIA's CUDA GPU list). Everything else — AMD graphics
parts, Habana Gaudi, AWS Inferentia/Trainium, Qualcomm AI100 (which need their own SDKs), Kepler and
Maxwell GPUs (dropped by CUDA 12), and Graviton-hosted T4g (arm64 images) — is used only when the
workload names it explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass

# Fraction of nominal memory a training or serving process can actually allocate.
USABLE_MEMORY_FRACTION = 0.90


@dataclass(frozen=True, slots=True)
class GpuSpec:
    name: str
    memory_gib: float
    vendor: str
    # CUDA compute capability for NVIDIA parts; None for other vendors.
    compute_capability: float | None
    auto: bool

    @property
    def supports_bf16(self) -> bool:
        # bf16 tensor cores arrived with Ampere (sm_80); older NVIDIA parts emulate it slowly or not
        # at all, and non-NVIDIA parts are only used when named, with their own toolchains.
        return self.compute_capability is not None and self.compute_capability >= 8.0

    @property
    def supports_fp8(self) -> bool:
        # FP8 tensor cores arrived with Ada and Hopper (sm_89, sm_90).
        return self.compute_capability is not None and self.compute_capability >= 8.9

    @property
    def usable_memory_gib(self) -> float:
        return self.memory_gib * USABLE_MEMORY_FRACTION


GPUS: dict[str, GpuSpec] = {
    spec.name: spec
    for spec in (
        GpuSpec("B200", 180, "NVIDIA", 10.0, True),
        GpuSpec("H200", 141, "NVIDIA", 9.0, True),
        GpuSpec("H100", 80, "NVIDIA", 9.0, True),
        GpuSpec("A100-80GB", 80, "NVIDIA", 8.0, True),
        GpuSpec("A100", 40, "NVIDIA", 8.0, True),
        GpuSpec("L40S", 48, "NVIDIA", 8.9, True),
        GpuSpec("L4", 24, "NVIDIA", 8.9, True),
        GpuSpec("A10G", 24, "NVIDIA", 8.6, True),
        GpuSpec("A10", 24, "NVIDIA", 8.6, True),
        GpuSpec("V100-32GB", 32, "NVIDIA", 7.0, True),
        GpuSpec("V100", 16, "NVIDIA", 7.0, True),
        GpuSpec("T4", 16, "NVIDIA", 7.5, True),
        GpuSpec("P100", 16, "NVIDIA", 6.0, True),
        GpuSpec("P4", 8, "NVIDIA", 6.1, True),
        GpuSpec("T4g", 16, "NVIDIA", 7.5, False),
        GpuSpec("K80", 12, "NVIDIA", 3.7, False),
        GpuSpec("M60", 8, "NVIDIA", 5.2, False),
        GpuSpec("Radeon MI25", 16, "AMD", None, False),
        GpuSpec("Radeon Pro V520", 8, "AMD", None, False),
        GpuSpec("Gaudi HL-205", 32, "Habana", None, False),
        GpuSpec("Inferentia", 8, "AWS", None, False),
        GpuSpec("Inferentia2", 32, "AWS", None, False),
        GpuSpec("Trainium", 32, "AWS", None, False),
        GpuSpec("Qualcomm AI100", 16, "Qualcomm", None, False),
    )
}

# Other spellings users and clouds use, lower-cased. GCP sells the H100 of its a3-megagpu machines
# under its own SKU name; it is the same chip.
_ALIASES: dict[str, str] = {
    "a100-40gb": "A100",
    "a100-40g": "A100",
    "a100-80g": "A100-80GB",
    "h100-80gb": "H100",
    "h100-mega": "H100",
    "h100-sxm": "H100",
    "v100-16gb": "V100",
    "gaudi": "Gaudi HL-205",
    "inferentia1": "Inferentia",
    "trainium1": "Trainium",
    "ai100": "Qualcomm AI100",
    "mi25": "Radeon MI25",
    "v520": "Radeon Pro V520",
}
_BY_LOWER: dict[str, str] = {name.lower(): name for name in GPUS} | _ALIASES


def normalize_gpu_name(name: str) -> str | None:
    """The canonical name for ``name`` (any case, any alias), or None for an unknown GPU."""
    return _BY_LOWER.get(name.strip().lower())


def gpu_by_name_and_memory(name: str, memory_gib: float | None) -> str | None:
    """The canonical name of a GPU a cloud reports by its chip name and memory (AWS's
    ``GpuInfo``: ``A100`` with 80 GiB is the A100-80GB); None for an unknown chip."""
    canonical = normalize_gpu_name(name)
    if canonical is None or memory_gib is None:
        return canonical
    variants = [
        g for g in GPUS.values() if g.name == canonical or g.name.startswith(f"{canonical}-")
    ]
    return min(variants, key=lambda g: (abs(g.memory_gib - memory_gib), g.name)).name


def gpu_spec(name: str) -> GpuSpec:
    """The facts for a canonical GPU name; raises KeyError for names not in the vocabulary."""
    return GPUS[name]


def known_gpu_names() -> list[str]:
    return sorted(GPUS)

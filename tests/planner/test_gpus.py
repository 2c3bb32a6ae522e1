"""The GPU vocabulary: one name per chip, aliases, and which GPUs the planner may pick itself."""

from __future__ import annotations

import pytest

from gpufleet.planner.gpus import GPUS, gpu_spec, known_gpu_names, normalize_gpu_name
from tests.helpers import ROOT


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("H100", "H100"),
        ("h100", "H100"),
        (" H100 ", "H100"),
        ("H100-MEGA", "H100"),
        ("a100-40gb", "A100"),
        ("A100-80GB", "A100-80GB"),
        ("gaudi", "Gaudi HL-205"),
        ("l40s", "L40S"),
    ],
)
def test_normalize(given: str, canonical: str) -> None:
    assert normalize_gpu_name(given) == canonical


def test_unknown_names() -> None:
    assert normalize_gpu_name("Virtex UltraScale (VU9P)") is None
    assert normalize_gpu_name("H1000") is None
    with pytest.raises(KeyError):
        gpu_spec("H1000")


def test_auto_gpus_are_current_cuda_parts() -> None:
    auto = {name for name, spec in GPUS.items() if spec.auto}
    assert {"H100", "A100", "L4", "T4"} <= auto
    # Other vendors' accelerators, CUDA-12-dropped GPUs and arm64-hosted T4g only by name.
    assert not auto & {"Inferentia", "Trainium", "Gaudi HL-205", "Radeon MI25", "K80", "M60", "T4g"}
    assert all((GPUS[name].compute_capability or 0.0) >= 6.0 for name in auto)


def test_bf16_support_starts_with_ampere() -> None:
    assert gpu_spec("A100").supports_bf16 and gpu_spec("L4").supports_bf16
    assert not gpu_spec("V100").supports_bf16 and not gpu_spec("T4").supports_bf16
    assert not gpu_spec("Trainium").supports_bf16  # not a CUDA part; used only when named


def test_usable_memory_leaves_a_margin() -> None:
    assert gpu_spec("H100").usable_memory_gib == pytest.approx(72)


def test_known_names_sorted() -> None:
    names = known_gpu_names()
    assert names == sorted(names) and "H100" in names


def test_the_docs_list_the_general_purpose_gpus() -> None:
    text = " ".join((ROOT / "docs" / "spec.md").read_text().split())
    listed = text.split("General-purpose GPUs are the NVIDIA data-centre parts current CUDA ")[1]
    names = listed.split("supports (", 1)[1].split(")", 1)[0].split(", ")
    auto = [name for name, spec in GPUS.items() if spec.auto]
    assert names == auto, (
        "docs/spec.md's list of general-purpose GPUs differs from planner/gpus.py's auto GPUs: "
        f"not listed {[n for n in auto if n not in names]}, listed but not auto "
        f"{[n for n in names if n not in auto]} (list them in planner/gpus.py's order)"
    )

"""The VRAM estimator against published figures, and its basic monotonicity."""

from __future__ import annotations

from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpufleet.planner.gpus import GPUS
from gpufleet.planner.spec import Precision
from gpufleet.planner.vram import (
    GIB,
    estimate_serving_vram,
    estimate_training_vram,
    estimate_vram,
    model_state_bytes,
    shape_from_params,
)


def usable(gpu: str) -> float:
    return GPUS[gpu].usable_memory_gib


def test_full_fine_tuning_mixed_precision_adam_is_16_bytes_per_parameter() -> None:
    # ZeRO (Rajbhandari et al. 2020), section 3.1: 2 + 2 + 12 = 16 bytes per parameter.
    assert model_state_bytes(1e9, "full", "bf16") / 1e9 == 16
    assert model_state_bytes(1e9, "full", "fp16") / 1e9 == 16
    # Pure fp32 with Adam: 4 (weights) + 4 (gradients) + 8 (two moments) = 16 as well.
    assert model_state_bytes(1e9, "full", "fp32") / 1e9 == 16


def test_lora_and_qlora_states() -> None:
    # Frozen bf16 base (2 B/param) plus 1% trainable adapters at 16 B each.
    assert model_state_bytes(1e9, "lora", "bf16") / 1e9 == pytest.approx(2 + 0.16)
    # 4-bit NF4 with double quantization: 4.127 bits per parameter (QLoRA, section 3).
    assert model_state_bytes(1e9, "qlora", "bf16") / 1e9 == pytest.approx(4.127 / 8 + 0.16)
    with pytest.raises(ValueError, match="unknown fine-tuning method"):
        model_state_bytes(1e9, "dora", "bf16")


def test_7b_qlora_fits_one_24gb_gpu() -> None:
    estimate = estimate_training_vram(7, "qlora", "bf16", 4096)
    assert estimate.min_gpus(usable("L4")) == 1
    assert estimate.min_gpus(usable("A10G")) == 1
    assert estimate.per_gpu_total_gib(1) < 24 * 0.9


def test_65b_qlora_fits_one_48gb_gpu_at_short_sequences() -> None:
    # QLoRA abstract: "finetune a 65B parameter model on a single 48GB GPU" (batch of 512 tokens).
    assert estimate_training_vram(65, "qlora", "bf16", 512).min_gpus(usable("L40S")) == 1


def test_70b_full_fine_tune_needs_multiple_80gb_gpus_on_several_nodes() -> None:
    estimate = estimate_training_vram(70, "full", "bf16", 4096)
    # ~1.1 TB of model states alone.
    assert estimate.states_gib * GIB == pytest.approx(70e9 * 16)
    gpus = estimate.min_gpus(usable("H100"))
    assert gpus is not None and gpus > 8  # more than one 8-GPU node
    assert estimate.min_gpus(usable("A100-80GB")) == gpus


def test_7b_full_fine_tune_needs_two_80gb_gpus() -> None:
    assert estimate_training_vram(7, "full", "bf16", 4096).min_gpus(usable("H100")) == 2


def test_serving_weights_plus_kv_cache() -> None:
    # 7B in 16-bit is ~13 GiB of weights: too big for a 16 GB T4, fine on a 24 GB L4.
    seven = estimate_serving_vram(7, "bf16", 4096)
    assert seven.min_gpus(usable("L4")) == 1
    assert seven.min_gpus(usable("T4")) == 2
    # 70B in 16-bit is 140 GB: at least two 80 GB GPUs.
    assert estimate_serving_vram(70, "bf16", 4096).min_gpus(usable("H100")) == 2


def test_estimate_vram_dispatches_on_method() -> None:
    assert estimate_vram(7, None, "bf16", 4096) == estimate_serving_vram(7, "bf16", 4096)
    assert estimate_vram(7, "lora", "bf16", 4096) == estimate_training_vram(7, "lora", "bf16", 4096)


def test_shape_matches_released_models() -> None:
    llama_7b = shape_from_params(6.7e9)
    assert llama_7b.hidden == pytest.approx(4096, rel=0.05)
    assert llama_7b.layers == pytest.approx(32, rel=0.05)
    llama_13b = shape_from_params(13e9)
    assert llama_13b.hidden == pytest.approx(5120, rel=0.05)


def test_activations_too_big_for_a_gpu_means_no_count_fits() -> None:
    huge_batch = estimate_training_vram(7, "qlora", "bf16", 2_000_000)
    assert huge_batch.min_gpus(usable("L4")) is None


@given(
    params=st.floats(0.1, 500),
    tokens=st.integers(1, 65536),
    precision=st.sampled_from(get_args(Precision)),
)
def test_methods_order_and_growth(params: float, tokens: int, precision: str) -> None:
    qlora, lora, full = (
        estimate_training_vram(params, m, precision, tokens).total_gib()
        for m in ("qlora", "lora", "full")
    )
    assert qlora < lora < full
    bigger = estimate_training_vram(params * 2, "lora", precision, tokens).total_gib()
    assert bigger > lora
    longer = estimate_training_vram(params, "lora", precision, tokens * 2).total_gib()
    assert longer > lora


@given(st.floats(0.1, 1000), st.floats(8, 200))
def test_min_gpus_really_fits(params: float, memory: float) -> None:
    estimate = estimate_training_vram(params, "full", "bf16", 4096)
    n = estimate.min_gpus(memory)
    if n is not None:
        assert estimate.per_gpu_total_gib(n) <= memory + 1e-6
        if n > 1:
            assert estimate.per_gpu_total_gib(n - 1) > memory

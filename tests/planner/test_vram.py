"""The VRAM estimator against published figures, and its basic monotonicity."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpufleet.planner.gpus import GPUS
from gpufleet.planner.model_sizes import OPEN_MODELS, kv_gib, model_size_table, weights_gib
from gpufleet.planner.vram import (
    GIB,
    TRAINING_PRECISIONS,
    WEIGHT_BYTES,
    Serving,
    estimate_serving_vram,
    estimate_training_vram,
    estimate_vram,
    model_state_bytes,
    shape_from_params,
)
from tests.helpers import ROOT


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
    precision=st.sampled_from(sorted(TRAINING_PRECISIONS)),
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


MODELS = {m.name: m for m in OPEN_MODELS}


def test_serving_figures_match_published_ones() -> None:
    llama2 = MODELS["Llama 2 7B"]
    # NVIDIA Technical Blog, "Mastering LLM Techniques: Inference Optimization" (2023): Llama 2
    # 7B's KV cache is 0.5 MiB a token in 16-bit, ~2 GB for a 4,096-token sequence.
    assert kv_gib(llama2, 1) * 1024 == pytest.approx(0.5)
    assert kv_gib(llama2, 4096) == pytest.approx(2.0)
    # Llama 3 70B: 80 layers x 8 KV heads x 128 x (K, V) x 2 bytes = 320 KiB a token.
    assert kv_gib(MODELS["Llama 3.1 70B"], 1) * 2**20 == pytest.approx(320)
    # bf16 checkpoints on Hugging Face, decimal GB: the weights are the parameters x 2 bytes.
    for name, published_gb in (
        ("Llama 2 7B", 13.5),
        ("Llama 3.1 8B", 16.1),
        ("Llama 3.1 70B", 141),
    ):
        assert weights_gib(MODELS[name], "bf16") * GIB / 1e9 == pytest.approx(
            published_gb, rel=0.01
        )


def test_quantized_weights_and_grouped_query_attention_shrink_serving() -> None:
    model = MODELS["Llama 3.1 70B"]
    shape = dict(layers=model.layers, hidden=model.hidden)

    def total(precision: str, kv_heads: int | None = None, kv: str | None = None) -> float:
        serving = Serving(kv, kv_heads=kv_heads, context_tokens=8192, sequences=16, **shape)
        return estimate_vram(model.params_billions, None, precision, 4096, serving).total_gib()

    sizes = [total(p, 8) for p in ("fp32", "bf16", "fp8", "int4")]
    assert sizes == sorted(sizes, reverse=True)
    assert total("int8", 8) == total("fp8", 8)  # both one byte a weight
    # Without kv_heads every one of the 64 heads keeps K and V: 8x the cache of 8 KV heads.
    cache = lambda heads: total("bf16", heads) - weights_gib(model, "bf16") - 1.0  # noqa: E731
    assert cache(None) == pytest.approx(8 * cache(8))
    assert total("bf16", 8, "fp8") < total("bf16", 8)
    assert WEIGHT_BYTES["int4"] == pytest.approx(4.125 / 8)


def test_the_docs_table_is_the_estimators() -> None:
    page = (ROOT / "docs" / "spec.md").read_text()
    assert model_size_table() in page, (
        "docs/spec.md's model-size table differs from planner/model_sizes.py: paste "
        "model_size_table()'s output"
    )


def _need(gpu: dict[str, object]) -> list[str]:
    from gpufleet.planner.gpu_need import resolve_gpu_need
    from gpufleet.planner.spec import EnvironmentLimits, Workload

    workload = Workload.model_validate({"name": "w", "kind": "inference", "gpu": gpu})
    options = resolve_gpu_need(workload, EnvironmentLimits()).options
    return [f"{o.min_per_node}x {o.gpu_name}" for o in options]


LLAMA_70B = {
    "params_billions": 70.55,
    "layers": 80,
    "hidden_size": 8192,
    "kv_heads": 8,
    "context_tokens": 8192,
    "concurrent_sequences": 8,
}


def test_quantized_serving_needs_fewer_or_smaller_gpus() -> None:
    bf16 = _need(LLAMA_70B)
    int4 = _need({**LLAMA_70B, "precision": "int4"})
    assert "3x H100" in bf16 and "1x H100" in int4, (bf16, int4)
    # FP8 runs on Ada and Hopper on: no T4, A100 or A10G option.
    fp8 = _need({"params_billions": 7, "precision": "fp8"})
    assert fp8 and not any(o.split()[1] in ("T4", "A100", "A10G", "V100") for o in fp8)


@pytest.mark.parametrize(
    ("gpu", "words"),
    [
        ("{params_billions: 7, method: lora, precision: int4}", "fine-tuning computes in bf16"),
        ("{params_billions: 7, method: lora, kv_heads: 8}", "kv_heads sizes serving"),
    ],
)
def test_serving_only_fields_on_a_fine_tune_are_spec_errors(gpu: str, words: str) -> None:
    from gpufleet.planner.spec_loader import SpecError, parse_spec
    from tests.helpers import spec_text

    text = spec_text(f"workloads:\n  - {{name: t, kind: training, gpu: {gpu}}}\n")
    with pytest.raises(SpecError) as caught:
        parse_spec(text, "s.yaml")
    assert any(words in p.message for p in caught.value.problems), caught.value.problems

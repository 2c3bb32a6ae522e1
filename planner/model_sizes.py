"""Serving memory of a few open models, from the VRAM estimator: docs/spec.md's model-size table.

Each model is given with the shape its ``config.json`` on Hugging Face states (parameters,
layers, hidden size, key/value heads), so the table shows what ``gpu: {params_billions: ...,
layers: ..., hidden_size: ..., kv_heads: ...}`` plans with; ``tests/planner/test_vram.py`` checks
the figures against published ones and docs/spec.md against ``model_size_table``.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpufleet.planner.vram import GIB, WEIGHT_BYTES, shape_from_params

TABLE_TOKENS = 4096  # one sequence's context in the table


@dataclass(frozen=True)
class OpenModel:
    name: str
    params_billions: float
    layers: int
    hidden: int
    kv_heads: int


# From each model's config.json (huggingface.co/<repo>) and its parameter count.
OPEN_MODELS: tuple[OpenModel, ...] = (
    OpenModel("Llama 2 7B", 6.74, 32, 4096, 32),
    OpenModel("Mistral 7B v0.1", 7.24, 32, 4096, 8),
    OpenModel("Llama 3.1 8B", 8.03, 32, 4096, 8),
    OpenModel("Llama 2 70B", 68.98, 80, 8192, 8),
    OpenModel("Llama 3.1 70B", 70.55, 80, 8192, 8),
    OpenModel("Qwen2.5 72B", 72.71, 80, 8192, 8),
)


def weights_gib(model: OpenModel, precision: str) -> float:
    return model.params_billions * 1e9 * WEIGHT_BYTES[precision] / GIB


def kv_gib(model: OpenModel, tokens: int, kv_precision: str = "bf16") -> float:
    shape = shape_from_params(
        model.params_billions * 1e9,
        layers=model.layers,
        hidden=model.hidden,
        kv_heads=model.kv_heads,
    )
    return shape.kv_bytes_per_token(kv_precision) * tokens / GIB


def model_size_table() -> str:
    """docs/spec.md's table, in Markdown."""
    lines = [
        "| model | parameters | layers / hidden / KV heads | weights bf16 | fp8 or int8 | int4 "
        f"| KV cache per {TABLE_TOKENS:,}-token sequence (16-bit) |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in OPEN_MODELS:
        lines.append(
            f"| {m.name} | {m.params_billions:g}B | {m.layers} / {m.hidden} / {m.kv_heads} "
            f"| {weights_gib(m, 'bf16'):.1f} GiB | {weights_gib(m, 'int8'):.1f} GiB "
            f"| {weights_gib(m, 'int4'):.1f} GiB | {kv_gib(m, TABLE_TOKENS):.2f} GiB |"
        )
    return "\n".join(lines) + "\n"

"""Estimate the GPU memory a model needs, and how many GPUs of a type hold it.

Memory splits into *model states*, sharded across every GPU of the job (FSDP / ZeRO-3 for training,
tensor parallelism for serving), and *per-GPU* memory each GPU needs for its own micro-batch.

Model states, bytes per parameter:

- full fine-tuning, bf16/fp16 mixed precision with Adam: 2 (weights) + 2 (gradients) + 12 (fp32
  master weights, momentum, variance) = 16. ZeRO, Rajbhandari et al. 2020, section 3.1
  ("2Ψ + 2Ψ + 12Ψ = 16Ψ bytes"). In fp32: 4 + 4 + 8 = 16 too.
- LoRA: frozen base weights at the training precision (2 or 4 bytes) plus trainable adapters with
  full Adam state (16 bytes each). Adapters on every linear layer at rank 16-64 come to 0.5-1.2% of
  the base (Hu et al. 2021; Dettmers et al. 2023 section 4); we take 1%.
- QLoRA: base weights in 4-bit NormalFloat with double quantization, 4 + 0.127 bits = 0.516 bytes
  per parameter (Dettmers et al. 2023, section 3), plus the same 1% adapters.
- serving: weights at the serving precision — 4 bytes (fp32), 2 (bf16, fp16), 1 (fp8, int8
  with per-channel scales), 0.5 + 2/128 (int4 with a 16-bit scale per group of 128 weights,
  as AWQ and GPTQ store them) — plus the KV cache: 2 (K and V) x layers x KV heads x head
  size (128) x bytes per token (the KV precision: 16-bit unless the spec says fp8 or int8),
  for ``context_tokens x concurrent_sequences`` tokens (else ``batch_tokens``). Without
  ``kv_heads`` every attention head keeps its K and V (hidden / 128 heads: no grouped-query
  attention, an upper bound); Llama 3 70B, with 8 KV heads for 64 query heads, needs 8x less.
  A model's real ``layers``, ``hidden_size`` and ``kv_heads`` (its config.json) replace the
  ones derived from its size.

Per-GPU memory (training) follows Korthikanti et al. 2022, "Reducing Activation Recomputation in
Large Transformer Models": a layer's activations take 34·h bytes per token in 16-bit without the
attention-score term, which flash attention removes. With full activation checkpointing (standard
for fine-tuning) a GPU keeps each layer's 16-bit input (2·h bytes per token per layer) and one
layer's working set while it recomputes: tokens x h x (2L + 34) bytes, doubled in fp32. Add the
logits for the loss, tokens x vocabulary x 6 bytes (16-bit logits and their fp32 copy), with a
32,000-token vocabulary, and 1 GiB for the CUDA context and workspaces.

Shape from size: a decoder with L layers and hidden size h has about 12·L·h² parameters, and
released models keep L ≈ h/128 (Llama-2 7B: h 4096, L 32; 13B: 5120, 40; 70B: 8192, 80), so
h = (128·P/12)^(1/3).

A GPU holds a job when states/n + per-GPU memory fits in its usable memory (``gpus.GpuSpec``:
nominal less 10% for fragmentation and reserved memory).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

GIB = 2**30
BYTES_16BIT = 2
ADAM_MIXED_PRECISION_BYTES = 16.0
ADAM_FP32_BYTES = 16.0
NF4_DOUBLE_QUANT_BYTES = (4 + 0.127) / 8
LORA_TRAINABLE_FRACTION = 0.01
LOGIT_BYTES = 6
VOCABULARY = 32_000
RUNTIME_OVERHEAD_GIB = 1.0
LAYER_WORKING_SET = 34  # Korthikanti et al. 2022: bytes per hidden unit per token, 16-bit


HEAD_SIZE = 128  # per attention head: Llama, Mistral, Qwen, Gemma 2 and most open models
# Bytes a weight takes at each serving precision (int4: 4 bits and a 16-bit scale per 128).
WEIGHT_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5 + 2 / 128,
}
# Bytes a cached key or value takes.
KV_BYTES: dict[str, float] = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0}
# The precisions fine-tuning computes in (QLoRA quantizes its frozen base itself).
TRAINING_PRECISIONS = frozenset({"fp32", "bf16", "fp16"})


def _precision_bytes(precision: str) -> int:
    return 4 if precision == "fp32" else BYTES_16BIT


def default_kv_precision(precision: str) -> str:
    """The KV cache's precision when the spec does not say: the weights' when they are 16- or
    32-bit, else 16-bit (quantized weights, as vLLM and TensorRT-LLM keep the cache)."""
    return precision if precision in ("fp32", "bf16", "fp16") else "fp16"


@dataclass(frozen=True)
class ModelShape:
    hidden: float
    layers: float
    kv_heads: float

    def kv_bytes_per_token(self, kv_precision: str) -> float:
        """K and V of one token in every layer."""
        return 2 * self.layers * self.kv_heads * HEAD_SIZE * KV_BYTES[kv_precision]


def shape_from_params(
    params: float,
    *,
    layers: float | None = None,
    hidden: float | None = None,
    kv_heads: float | None = None,
) -> ModelShape:
    """The shape of a decoder of ``params`` parameters, ``12 L h^2 = P``, with L = h / 128 for
    what is not given; every head keeps K and V unless ``kv_heads`` says fewer do."""
    if hidden is not None and layers is not None:
        width, depth = hidden, layers
    elif hidden is not None:
        width, depth = hidden, params / (12 * hidden * hidden)
    elif layers is not None:
        width, depth = (params / (12 * layers)) ** 0.5, layers
    else:
        width = (128 * params / 12) ** (1 / 3)
        depth = width / 128
    return ModelShape(width, depth, kv_heads if kv_heads is not None else width / HEAD_SIZE)


@dataclass(frozen=True)
class VramEstimate:
    """Memory of one job: ``states_gib`` shards across all its GPUs, the rest is per GPU."""

    states_gib: float
    per_gpu_gib: float

    def per_gpu_total_gib(self, gpus: int) -> float:
        return self.states_gib / gpus + self.per_gpu_gib

    def total_gib(self) -> float:
        return self.states_gib + self.per_gpu_gib

    def min_gpus(self, usable_gib: float) -> int | None:
        """Fewest GPUs of ``usable_gib`` each that hold the job, or None if none can."""
        room = usable_gib - self.per_gpu_gib
        if room <= 0:
            return None
        return max(1, math.ceil(self.states_gib / room - 1e-9))


def model_state_bytes(params: float, method: str, precision: str) -> float:
    """Weights, gradients and optimizer states of a fine-tuning job, in bytes (before sharding)."""
    adam = ADAM_FP32_BYTES if precision == "fp32" else ADAM_MIXED_PRECISION_BYTES
    if method == "full":
        return params * adam
    adapters = params * LORA_TRAINABLE_FRACTION * adam
    if method == "lora":
        return params * _precision_bytes(precision) + adapters
    if method == "qlora":
        return params * NF4_DOUBLE_QUANT_BYTES + adapters
    raise ValueError(f"unknown fine-tuning method {method!r}")


def estimate_training_vram(
    params_billions: float, method: str, precision: str, batch_tokens: int
) -> VramEstimate:
    params = params_billions * 1e9
    shape = shape_from_params(params)
    scale = _precision_bytes(precision) / BYTES_16BIT
    activations = (
        batch_tokens * shape.hidden * (2 * shape.layers + LAYER_WORKING_SET) * scale
        + batch_tokens * VOCABULARY * LOGIT_BYTES
    )
    return VramEstimate(
        states_gib=model_state_bytes(params, method, precision) / GIB,
        per_gpu_gib=activations / GIB + RUNTIME_OVERHEAD_GIB,
    )


def estimate_serving_vram(
    params_billions: float,
    precision: str,
    tokens: int,
    *,
    kv_precision: str | None = None,
    shape: ModelShape | None = None,
) -> VramEstimate:
    """Weights at ``precision`` and the KV cache of ``tokens`` tokens (all sequences')."""
    params = params_billions * 1e9
    found = shape or shape_from_params(params)
    kv = found.kv_bytes_per_token(kv_precision or default_kv_precision(precision))
    return VramEstimate(
        states_gib=(params * WEIGHT_BYTES[precision] + tokens * kv) / GIB,
        per_gpu_gib=RUNTIME_OVERHEAD_GIB,
    )


@dataclass(frozen=True)
class Serving:
    """What a serving estimate needs beyond size and precision (the spec's model fields)."""

    kv_precision: str | None = None
    layers: int | None = None
    hidden: int | None = None
    kv_heads: int | None = None
    context_tokens: int | None = None
    sequences: int | None = None


def estimate_vram(
    params_billions: float,
    method: str | None,
    precision: str,
    batch_tokens: int,
    serving: Serving | None = None,
) -> VramEstimate:
    """Training estimate when a fine-tuning ``method`` is given, else a serving estimate: the
    KV cache of ``context_tokens x sequences`` tokens when given, else of ``batch_tokens``."""
    if method is not None:
        return estimate_training_vram(params_billions, method, precision, batch_tokens)
    s = serving or Serving()
    shape = shape_from_params(
        params_billions * 1e9, layers=s.layers, hidden=s.hidden, kv_heads=s.kv_heads
    )
    tokens = (s.context_tokens or batch_tokens) * (s.sequences or 1)
    return estimate_serving_vram(
        params_billions, precision, tokens, kv_precision=s.kv_precision, shape=shape
    )

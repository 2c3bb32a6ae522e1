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
- serving: weights at the serving precision, plus the KV cache for ``batch_tokens`` tokens:
  2 (K and V) x layers x hidden x bytes per token, without grouped-query attention (an upper
  bound: GQA models need 4-8x less).

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


def _precision_bytes(precision: str) -> int:
    return 4 if precision == "fp32" else BYTES_16BIT


@dataclass(frozen=True)
class ModelShape:
    hidden: float
    layers: float


def shape_from_params(params: float) -> ModelShape:
    hidden = (128 * params / 12) ** (1 / 3)
    return ModelShape(hidden=hidden, layers=hidden / 128)


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
    params_billions: float, precision: str, batch_tokens: int
) -> VramEstimate:
    params = params_billions * 1e9
    shape = shape_from_params(params)
    width = _precision_bytes(precision)
    kv_cache = batch_tokens * 2 * shape.layers * shape.hidden * width
    return VramEstimate(
        states_gib=(params * width + kv_cache) / GIB,
        per_gpu_gib=RUNTIME_OVERHEAD_GIB,
    )


def estimate_vram(
    params_billions: float, method: str | None, precision: str, batch_tokens: int
) -> VramEstimate:
    """Training estimate when a fine-tuning ``method`` is given, else a serving estimate."""
    if method is None:
        return estimate_serving_vram(params_billions, precision, batch_tokens)
    return estimate_training_vram(params_billions, method, precision, batch_tokens)

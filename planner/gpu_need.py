"""Which GPU types can run a workload, and how many of each per node.

By name: that GPU. By memory: every general-purpose GPU (``gpus.GpuSpec.auto``) with enough
memory. By model: every general-purpose GPU (Ampere or newer for bf16) with the fewest GPUs per
node that hold the VRAM estimate, the job's model states spread over ``count x nodes`` GPUs.
The environment's ``allowed_gpus`` then narrows the list.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from gpufleet.planner.gpu_sharing import ReplicaNeed, SharedGpu, shared_gpu
from gpufleet.planner.gpus import GPUS
from gpufleet.planner.spec import (
    EnvironmentLimits,
    GpuByMemory,
    GpuByModel,
    GpuByName,
    Workload,
)
from gpufleet.planner.vram import Serving, VramEstimate, estimate_vram


@dataclass(frozen=True)
class GpuOption:
    """A GPU type a workload can use, and the fewest of it each node needs."""

    gpu_name: str
    min_per_node: int
    # With sharing: how replicas share one GPU of the type (None: each has whole GPUs).
    shared: SharedGpu | None = None


@dataclass(frozen=True)
class GpuNeed:
    options: tuple[GpuOption, ...]
    description: str
    # Why ``options`` is empty, when it is.
    reason: str | None = None


def resolve_gpu_need(workload: Workload, limits: EnvironmentLimits) -> GpuNeed:
    """Which GPU types (and how many per node) can run ``workload`` in an environment."""
    gpu = workload.gpu
    nodes = workload.nodes
    if isinstance(gpu, GpuByName):
        options = [GpuOption(gpu.name, gpu.count)]
        description = f"{gpu.count}x {gpu.name}"
        empty = f"no GPU named {gpu.name}"
    elif isinstance(gpu, GpuByMemory):
        options = [
            GpuOption(spec.name, gpu.count)
            for spec in GPUS.values()
            if spec.auto and spec.memory_gib >= gpu.min_memory_gib
        ]
        description = f"{gpu.count}x GPU with >= {gpu.min_memory_gib:g} GiB"
        largest = max((s for s in GPUS.values() if s.auto), key=lambda s: s.memory_gib)
        empty = (
            f"no GPU has {gpu.min_memory_gib:g} GiB; the largest is "
            f"{largest.name} with {largest.memory_gib:g} GiB"
        )
    else:
        options, description, empty = _options_for_model(gpu, nodes)
    if workload.sharing != "none":
        need = replica_need(workload)
        # A replica that needs more than one GPU shares none.
        options = [
            replace(o, shared=shared_gpu(o.gpu_name, workload.sharing, need))
            if o.min_per_node == 1
            else o
            for o in options
        ]
    if limits.allowed_gpus is not None:
        allowed = set(limits.allowed_gpus)
        kept = [o for o in options if o.gpu_name in allowed]
        if options and not kept:
            return GpuNeed(
                (),
                description,
                f"the environment allows only {', '.join(limits.allowed_gpus)}",
            )
        options = kept
    return GpuNeed(tuple(options), description, None if options else empty)


def model_estimate(gpu: GpuByModel) -> VramEstimate:
    """The VRAM estimate of a workload sized by its model, with every field the spec gives."""
    serving = Serving(
        gpu.kv_cache_precision,
        gpu.layers,
        gpu.hidden_size,
        gpu.kv_heads,
        gpu.context_tokens,
        gpu.concurrent_sequences,
    )
    return estimate_vram(gpu.params_billions, gpu.method, gpu.precision, gpu.batch_tokens, serving)


def replica_need(workload: Workload) -> ReplicaNeed:
    """What one replica of a workload that shares GPUs needs of one: its ``replica_gpu``, the
    memory the model's estimate puts on one GPU, or the memory it asks a GPU for."""
    given = workload.replica_gpu
    memory = given.memory_gib if given is not None else None
    gpu = workload.gpu
    if isinstance(gpu, GpuByModel):
        # A replica holds at least its model: a smaller figure given is not its need.
        estimate = model_estimate(gpu).per_gpu_total_gib(1)
        memory = estimate if memory is None else max(memory, estimate)
    elif memory is None and isinstance(gpu, GpuByMemory):
        memory = gpu.min_memory_gib
    if given is None:
        return ReplicaNeed(memory)
    return ReplicaNeed(memory, given.compute, given.mig_profile, given.memory_isolation)


def _options_for_model(gpu: GpuByModel, nodes: int) -> tuple[list[GpuOption], str, str]:
    estimate = model_estimate(gpu)
    job = f"{gpu.method} fine-tune" if gpu.method else "serving"
    description = (
        f"{gpu.params_billions:g}B {job} in {gpu.precision} (~{estimate.total_gib():.0f} GiB)"
    )
    options: list[GpuOption] = []
    for spec in GPUS.values():
        if not spec.auto or (gpu.precision == "bf16" and not spec.supports_bf16):
            continue
        if "fp8" in (gpu.precision, gpu.kv_cache_precision) and not spec.supports_fp8:
            continue
        total = estimate.min_gpus(spec.usable_memory_gib)
        if total is None:
            continue
        if gpu.count is not None:
            if gpu.count * nodes >= total:
                options.append(GpuOption(spec.name, gpu.count))
        else:
            options.append(GpuOption(spec.name, math.ceil(total / nodes)))
    if gpu.count is not None:
        empty = (
            f"{description} does not fit on {gpu.count * nodes} GPUs of any type "
            f"({gpu.count} per node x {nodes} node(s)); raise gpu.count or nodes"
        )
    else:
        empty = f"{description}: no GPU type can hold its per-GPU memory"
    return options, description, empty

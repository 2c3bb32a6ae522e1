"""Several replicas on one GPU: how many fit, and how the GPU is cut for them.

Three ways to share a GPU (NVIDIA's MIG User Guide, "CUDA Concurrency Mechanisms"):

- **MIG** cuts an A100, H100, H200 or B200 into isolated instances (``mig_profiles``): each
  replica gets its own memory, cache and SMs. A GPU's layout is a set of profiles at valid
  placements whose memory slices do not overlap and whose compute slices sum to at most 7.
  ``mig_layout`` finds the layout with the most instances that each hold one replica (then the
  most compute), as an integer program solved exactly by HiGHS (``highspy``): one binary per
  (profile, placement), one row per memory slice, one for the compute slices. Where one
  profile alone fits as many, that uniform layout is used instead: ``nvidia-smi`` lets the
  driver place instances, and a uniform layout fits in any order.
- **MPS** runs up to 48 client processes in one GPU context (Volta and later), each limited to
  a share of the SMs (``CUDA_MPS_ACTIVE_THREAD_PERCENTAGE``) and a pinned memory limit
  (``CUDA_MPS_PINNED_DEVICE_MEM_LIMIT``). No memory bandwidth or fault isolation.
- **Time-slicing** lets processes take turns on the whole GPU: no isolation at all; gpufleet
  packs it like MPS (memory and compute shares, at most 48 to a GPU) so replicas fit.

A replica's memory need is compared with what a slice can allocate (its nominal memory less
the margin whole GPUs keep: ``gpus.USABLE_MEMORY_FRACTION``). MPS and time-slicing are used
only where the spec names them, or says ``memory_isolation: false`` under ``auto``.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from gpufleet.planner.gpus import USABLE_MEMORY_FRACTION, gpu_spec
from gpufleet.planner.mig_profiles import (
    COMPUTE_SLICES,
    MEMORY_SLICES,
    MIG_PROFILES,
    MigProfile,
)

# How one GPU is shared; and what a workload's spec may ask (``sharing:``).
ShareMode = Literal["mig", "mps", "time_slicing"]
SharingChoice = Literal["none", ShareMode, "auto"]

# Client processes per GPU under MPS on Volta and later (MIG User Guide, Table 3); gpufleet
# holds time-slicing to the same, so a GPU's replicas stay countable.
MAX_CLIENTS = 48
# MPS memory limits and thread percentages arrived with Volta (compute capability 7.0).
MPS_MIN_COMPUTE_CAPABILITY = 7.0


@dataclass(frozen=True)
class ReplicaNeed:
    """What one replica needs of a GPU it shares."""

    memory_gib: float | None
    compute: float | None = None  # share of the GPU's compute, 0..1
    mig_profile: str | None = None
    memory_isolation: bool = True


@dataclass(frozen=True)
class SharedGpu:
    """How one GPU is shared: ``replicas`` replicas on it, by ``mode``."""

    mode: ShareMode
    replicas: int
    # MIG: the GPU's instances, one per replica, in the order they are created.
    mig_profiles: tuple[str, ...] = ()
    # MPS and time-slicing: each replica's memory and share of the SMs.
    memory_gib: float | None = None
    compute_percent: int | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "mode": self.mode,
            "replicas_per_gpu": self.replicas,
            "mig_profiles": list(self.mig_profiles) or None,
            "memory_gib": self.memory_gib,
            "compute_percent": self.compute_percent,
        }


def usable_gib(profile: MigProfile) -> float:
    return profile.memory_gib * USABLE_MEMORY_FRACTION


def eligible_profiles(gpu_name: str, need: ReplicaNeed) -> list[MigProfile]:
    """The GPU's MIG profiles one replica fits in."""
    found = []
    for profile in MIG_PROFILES.get(gpu_name, ()):
        if need.mig_profile is not None:
            if profile.name == need.mig_profile:
                found.append(profile)
            continue
        if need.memory_gib is not None and usable_gib(profile) < need.memory_gib:
            continue
        if need.compute is not None and profile.compute_fraction < need.compute - 1e-9:
            continue
        found.append(profile)
    return found


def _silent_solver() -> object:
    """A HiGHS instance that prints nothing: its C++ constructor writes a banner to the
    process's stdout (file descriptor 1) the first time, which would corrupt ``--format
    json`` output, so the descriptor points at /dev/null while it is made."""
    import highspy

    saved = os.dup(1)
    try:
        with Path(os.devnull).open("wb") as null:
            os.dup2(null.fileno(), 1)
            solver = highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    solver.setOptionValue("output_flag", False)
    return solver


@lru_cache(maxsize=256)
def _mig_layout(gpu_name: str, need: ReplicaNeed) -> tuple[MigProfile, ...]:
    import highspy
    import numpy

    choices = [(p, start) for p in eligible_profiles(gpu_name, need) for start in p.placements]
    if not choices:
        return ()
    solver = _silent_solver()
    assert isinstance(solver, highspy.Highs)
    # Most instances first, then most compute: a count is worth more than all compute slices.
    weight = COMPUTE_SLICES + 1
    for profile, _ in choices:
        solver.addBinary(obj=-(weight + profile.compute_slices))
    rows: list[tuple[list[int], list[float], float]] = [
        (
            [i for i, (p, start) in enumerate(choices) if memory_slice in p.slices_at(start)],
            [],
            1.0,
        )
        for memory_slice in range(MEMORY_SLICES)
    ]
    rows.append(
        (
            list(range(len(choices))),
            [float(p.compute_slices) for p, _ in choices],
            float(COMPUTE_SLICES),
        )
    )
    for columns, values, most in rows:
        if columns:
            solver.addRow(
                -highspy.kHighsInf,
                most,
                len(columns),
                numpy.array(columns, dtype=numpy.int32),
                numpy.array(values or [1.0] * len(columns), dtype=numpy.float64),
            )
    solver.run()
    if solver.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        raise RuntimeError(f"HiGHS found no optimal MIG layout for {gpu_name}")
    values = solver.getSolution().col_value
    chosen = [choice for choice, value in zip(choices, values, strict=True) if value > 0.5]
    # nvidia-smi leaves placement to the driver: a layout of one profile fits in any order,
    # so one of those wins where it holds as many (the most compute among them); a mixed
    # layout is created in the order of its planned starts.
    uniform = [p for p, _ in choices if p.max_instances == len(chosen)]
    if uniform:
        best = max(uniform, key=lambda p: (p.compute_slices, p.memory_slices))
        return (best,) * len(chosen)
    return tuple(profile for profile, _ in sorted(chosen, key=lambda c: c[1]))


def mig_layout(gpu_name: str, need: ReplicaNeed) -> tuple[MigProfile, ...]:
    """The MIG instances one GPU of ``gpu_name`` holds for replicas of ``need``: the most
    instances, one profile for all where that fits as many, else the most compute (in the
    order of their starts); () when the GPU has no MIG or no profile holds one."""
    return _mig_layout(gpu_name, need)


def _client_count(gpu_name: str, need: ReplicaNeed) -> int:
    """Replicas MPS or time-slicing fit on one GPU: its memory and compute shared out."""
    most = MAX_CLIENTS
    if need.memory_gib is not None:
        most = min(most, math.floor(gpu_spec(gpu_name).usable_memory_gib / need.memory_gib))
    if need.compute is not None:
        most = min(most, math.floor(1 / need.compute + 1e-9))
    return most


def _clients(gpu_name: str, mode: ShareMode, need: ReplicaNeed) -> SharedGpu | None:
    spec = gpu_spec(gpu_name)
    if spec.compute_capability is None:
        return None
    if mode == "mps" and spec.compute_capability < MPS_MIN_COMPUTE_CAPABILITY:
        return None
    count = _client_count(gpu_name, need)
    if count < 2:
        return None
    share = need.compute if need.compute is not None else 1 / count
    return SharedGpu(
        mode,
        count,
        memory_gib=need.memory_gib,
        compute_percent=max(1, math.floor(share * 100 + 1e-9)),
    )


def shared_gpu(gpu_name: str, choice: SharingChoice, need: ReplicaNeed) -> SharedGpu | None:
    """How one GPU of ``gpu_name`` is shared by replicas of ``need`` under ``choice``; None
    when it is not (whole GPUs): the mode does not apply to the GPU, or fits fewer than two."""
    if choice == "none" or (need.memory_gib is None and need.mig_profile is None):
        return None
    mig: SharedGpu | None = None
    if choice in ("mig", "auto"):
        layout = mig_layout(gpu_name, need)
        if len(layout) >= 2:
            mig = SharedGpu("mig", len(layout), tuple(p.name for p in layout))
    if choice == "mig" or need.mig_profile is not None:
        return mig
    if choice in ("mps", "time_slicing"):
        return _clients(gpu_name, choice, need)
    if need.memory_isolation:
        return mig
    # auto without isolation: whichever packs more, MIG on a tie (it isolates anyway).
    others = [c for c in (_clients(gpu_name, m, need) for m in ("mps", "time_slicing")) if c]
    best = max(others, key=lambda c: c.replicas, default=None)
    if mig is None or (best is not None and best.replicas > mig.replicas):
        return best
    return mig

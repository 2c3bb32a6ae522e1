"""Synthetic GPU samples, written as the collectors write them: nvidia-smi's CSV and the DCGM
exporter's Prometheus text (with timestamps, as ``promtool tsdb dump`` prints them)."""

from __future__ import annotations

import random
import time
from pathlib import Path

HEADER = "timestamp, index, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n"


def stamp(seconds: float) -> str:
    return (
        time.strftime("%Y/%m/%d %H:%M:%S", time.gmtime(seconds)) + f".{int(seconds % 1 * 1000):03d}"
    )


def readings(rng: random.Random, mean: float, memory_mib: float) -> tuple[int, int]:
    """One GPU's utilization (about ``mean`` percent) and memory (about ``memory_mib``)."""
    utilization = max(0, min(100, round(rng.gauss(mean, mean / 4))))
    return utilization, max(0, round(rng.gauss(memory_mib, memory_mib / 20)))


def nvidia_smi(
    path: Path,
    *,
    gpus: int,
    hours: float,
    mean: float,
    memory_mib: float,
    end: float | None = None,
    every: float = 300,
    seed: int = 1,
) -> Path:
    rng = random.Random(seed)
    last = (end if end is not None else time.time()) - 60
    lines = [HEADER]
    when = last - hours * 3600
    while when <= last:
        for gpu in range(gpus):
            utilization, memory = readings(rng, mean, memory_mib)
            lines.append(f"{stamp(when)}, {gpu}, {utilization} %, {memory} MiB, 40960 MiB\n")
        when += every
    path.write_text("".join(lines))
    return path


def dcgm(
    path: Path,
    *,
    workload: str | None,
    hosts: int,
    gpus: int,
    hours: float,
    mean: float,
    memory_mib: float,
    end: float | None = None,
    every: float = 300,
    seed: int = 2,
) -> Path:
    rng = random.Random(seed)
    last = (end if end is not None else time.time()) - 60
    lines = ["# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"]
    when = last - hours * 3600
    label = "" if workload is None else f',workload="{workload}"'
    while when <= last:
        ms = int(when * 1000)
        for host in range(hosts):
            for gpu in range(gpus):
                utilization, memory = readings(rng, mean, memory_mib)
                labels = f'gpu="{gpu}",UUID="GPU-{host}-{gpu}",Hostname="node-{host}"{label}'
                lines.append(f"DCGM_FI_DEV_GPU_UTIL{{{labels}}} {utilization} {ms}\n")
                lines.append(f"DCGM_FI_DEV_FB_USED{{{labels}}} {memory} {ms}\n")
                lines.append(f"DCGM_FI_DEV_SM_CLOCK{{{labels}}} 1410 {ms}\n")
        when += every
    path.write_text("".join(lines))
    return path

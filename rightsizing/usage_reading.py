"""Every source of samples the command names, read into one histogram per workload."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from gpufleet.rightsizing import cloudwatch_gpu, dcgm_text, nvidia_smi_csv
from gpufleet.rightsizing.sample_files import detect
from gpufleet.rightsizing.usage_stats import UsageStats
from gpufleet.text_input import InputFileError


def read_usage(files: Iterable[tuple[str | None, Path]]) -> tuple[dict[str, UsageStats], int]:
    """(samples per workload name, samples that name no workload) of sample files, each
    (the workload the whole file is of, or None; its path)."""
    found: dict[str, UsageStats] = {}
    unmatched = 0
    for workload, path in files:
        kind = detect(path)
        if kind == "nvidia-smi":
            if workload is None:
                raise InputFileError(
                    str(path),
                    "nvidia-smi samples do not say whose they are: give NAME=FILE",
                )
            nvidia_smi_csv.read_into(path, found.setdefault(workload, UsageStats()))
        else:
            unmatched += dcgm_text.read_into(path, found, workload)
    return found, unmatched


def read_cloudwatch(
    regions: Iterable[str], names: Iterable[str], start: datetime, end: datetime
) -> dict[str, UsageStats]:
    """The CloudWatch agent's samples of ``names`` in each region, merged."""
    found: dict[str, UsageStats] = {}
    for region in regions:
        for name, stats in cloudwatch_gpu.read(region, names, start, end).items():
            found.setdefault(name, UsageStats()).merge(stats)
    return found

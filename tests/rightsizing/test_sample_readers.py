"""The sample readers against references written from the formats, not from them: nvidia-smi
CSV of any column order, repeated headers, blank lines and [N/A] values read the same through
the block parser's fast path and its line-by-line one; percentiles are exact; DCGM labels
decide the workload."""

from __future__ import annotations

import calendar
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpufleet.rightsizing import dcgm_text, nvidia_smi_csv, sample_files
from gpufleet.rightsizing.usage_stats import UsageStats

COLUMNS = ["timestamp", "index", "utilization.gpu [%]", "memory.used [MiB]", "memory.total [MiB]"]

rows = st.lists(
    st.tuples(
        st.integers(0, 86_400 * 30),  # seconds after 2026-11-01
        st.integers(0, 7),
        st.none() | st.integers(0, 100),
        st.none() | st.integers(0, 81_920),
    ),
    min_size=1,
    max_size=200,
)


def _cell(column: str, row: tuple[int, int, int | None, int | None]) -> str:
    seconds, gpu, utilization, memory = row
    if column == "timestamp":
        day, rest = divmod(seconds, 86_400)
        hour, rest = divmod(rest, 3600)
        return f"2026/11/{day + 1:02d} {hour:02d}:{rest // 60:02d}:{rest % 60:02d}.000"
    if column == "index":
        return str(gpu)
    if column.startswith("utilization"):
        return "[N/A]" if utilization is None else f"{utilization} %"
    if column.startswith("memory.used"):
        return "[Not Supported]" if memory is None else f"{memory} MiB"
    return "40960 MiB"


@settings(max_examples=60, deadline=None)
@given(rows, st.permutations(COLUMNS), st.integers(1, 50), st.booleans(), st.integers(64, 4096))
def test_nvidia_smi_reads_what_its_rows_say(
    tmp_path_factory: pytest.TempPathFactory,
    samples: list[tuple[int, int, int | None, int | None]],
    order: list[str],
    header_every: int,
    blank_lines: bool,
    block: int,
) -> None:
    lines = []
    for i, row in enumerate(samples):
        if i % header_every == 0:
            lines.append(", ".join(order))
        if blank_lines and i % 7 == 3:
            lines.append("")
        lines.append(", ".join(_cell(c, row) for c in order))
    path = Path(tmp_path_factory.mktemp("smi")) / "gpu.csv"
    path.write_text("\n".join(lines) + "\n")
    original = sample_files.BLOCK_BYTES
    sample_files.BLOCK_BYTES = block  # small blocks: rows split across them, both paths run
    try:
        stats = UsageStats()
        nvidia_smi_csv.read_into(path, stats)
    finally:
        sample_files.BLOCK_BYTES = original
    utilization = [u for _, _, u, _ in samples if u is not None]
    memory = sorted(m for _, _, _, m in samples if m is not None)
    assert stats.utilization_samples == len(utilization)
    assert stats.memory_samples == len(memory)
    assert sorted(stats.memory_mib.elements()) == memory
    times = [s for s, _, _, _ in samples]
    start = calendar.timegm((2026, 11, 1, 0, 0, 0))
    assert stats.first == start + min(times) and stats.last == start + max(times)
    assert stats.gpus == {f"gpu.csv:{g}" for _, g, _, _ in samples}
    if utilization:
        ordered = sorted(utilization)
        rank = max(1, math.ceil(0.95 * len(ordered)))
        assert stats.utilization_percentile(0.95) == ordered[rank - 1]


def test_dcgm_labels_decide_the_workload_unless_the_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "dcgm.prom"
    path.write_text(
        "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
        'DCGM_FI_DEV_GPU_UTIL{gpu="0",Hostname="a",workload="chat"} 10 1763600000000\n'
        'DCGM_FI_DEV_FB_USED{gpu="0",Hostname="a",workload="chat"} 2048 1763600000000\n'
        'DCGM_FI_DEV_GPU_UTIL{gpu="1",Hostname="a",workload="batch"} 90 1763600060000\n'
        'DCGM_FI_DEV_GPU_UTIL{gpu="2",Hostname="a"} 50 1763600060000\n'
        "up 1\n"
        'DCGM_FI_DEV_POWER_USAGE{gpu="0"} 300.5\n'
    )
    found: dict[str, UsageStats] = {}
    assert dcgm_text.read_into(path, found, None) == 1
    assert sorted(found) == ["batch", "chat"]
    assert found["chat"].utilization_percentile(0.5) == 10
    assert found["chat"].memory_percentile_gib(0.5) == 2.0
    assert found["batch"].first == 1763600060.0
    named: dict[str, UsageStats] = {}
    assert dcgm_text.read_into(path, named, "serving") == 0
    assert list(named) == ["serving"] and named["serving"].utilization_samples == 3

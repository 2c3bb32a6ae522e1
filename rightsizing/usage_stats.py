"""What a workload's GPUs did, kept as histograms so any volume of samples takes bounded memory.

A sample is one GPU at one time: its utilization (percent of time a kernel ran, 0-100) and the
memory it used (MiB), either of which a source may lack. Utilization is kept per whole percent
(101 bins) and memory per MiB (at most one bin per distinct value a GPU reports, a few hundred
thousand on the largest GPU), so percentiles are exact and memory stays bounded whatever the
sample count. The GPUs seen are counted up to ``MAX_GPUS_TRACKED``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

# A GPU is busy in a sample when it is at least this utilized (idle GPUs report 0-2%).
BUSY_PERCENT = 5
MAX_GPUS_TRACKED = 100_000
# More memory than any GPU has (1 TiB, in MiB): a reading above it is not a GPU's. It also
# bounds the memory histogram's bins.
MAX_MEMORY_MIB = 1 << 20


@dataclass
class UsageStats:
    """A workload's samples: their histograms, times and GPUs."""

    utilization: list[int] = field(default_factory=lambda: [0] * 101)
    memory_mib: Counter[int] = field(default_factory=Counter)
    first: float | None = None  # epoch seconds
    last: float | None = None
    undated: int = 0  # samples without a time
    gpus: set[str] = field(default_factory=set)

    def add(
        self, when: float | None, gpu: str, utilization: float | None, memory_mib: float | None
    ) -> None:
        if utilization is not None:
            self.utilization[min(100, max(0, round(utilization)))] += 1
        if memory_mib is not None:
            self.memory_mib[max(0, round(memory_mib))] += 1
        if when is None:
            self.undated += 1
        else:
            self.first = when if self.first is None else min(self.first, when)
            self.last = when if self.last is None else max(self.last, when)
        if len(self.gpus) < MAX_GPUS_TRACKED:
            self.gpus.add(gpu)

    @property
    def utilization_samples(self) -> int:
        return sum(self.utilization)

    @property
    def memory_samples(self) -> int:
        return sum(self.memory_mib.values())

    @property
    def span_hours(self) -> float:
        if self.first is None or self.last is None:
            return 0.0
        return (self.last - self.first) / 3600

    def utilization_percentile(self, q: float) -> float | None:
        """The ``q`` quantile (0..1) of utilization, nearest rank; None without samples."""
        return _percentile(list(enumerate(self.utilization)), q)

    def memory_percentile_gib(self, q: float) -> float | None:
        found = _percentile(sorted(self.memory_mib.items()), q)
        return None if found is None else found / 1024

    @property
    def busy_fraction(self) -> float | None:
        total = self.utilization_samples
        return None if total == 0 else sum(self.utilization[BUSY_PERCENT:]) / total

    def merge(self, other: UsageStats) -> None:
        self.utilization = [a + b for a, b in zip(self.utilization, other.utilization, strict=True)]
        self.memory_mib.update(other.memory_mib)
        for when in (other.first, other.last):
            if when is not None:
                self.first = when if self.first is None else min(self.first, when)
                self.last = when if self.last is None else max(self.last, when)
        self.undated += other.undated
        for gpu in other.gpus:
            if len(self.gpus) >= MAX_GPUS_TRACKED:
                break
            self.gpus.add(gpu)


def _percentile(counts: list[tuple[int, int]], q: float) -> float | None:
    total = sum(count for _, count in counts)
    if total == 0:
        return None
    rank = max(1, -(-q * total // 1))  # nearest rank: the smallest value covering q
    seen = 0
    for value, count in counts:
        seen += count
        if seen >= rank:
            return float(value)
    return float(counts[-1][0])

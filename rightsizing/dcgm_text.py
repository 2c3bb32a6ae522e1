"""DCGM exporter samples in Prometheus text: ``DCGM_FI_DEV_GPU_UTIL`` (percent) and
``DCGM_FI_DEV_FB_USED`` (MiB) lines, each with its labels and, as ``promtool tsdb dump`` or a
federated scrape writes them, a millisecond timestamp:

    DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-…",Hostname="node-1",workload="chat"} 23 1763600000000

Other metrics and ``#`` lines are skipped. A sample's workload is its ``workload`` label
(``tag_keys.WORKLOAD``: relabel the instance's tag onto the series), unless the command line
names the workload for the whole file (``--usage NAME=FILE``); a sample with neither is counted
as unmatched. A GPU is its ``Hostname`` (or ``instance``) and its ``gpu`` index (or ``UUID``).
Label sets repeat on every scrape, so each is parsed once; values are counted per rounded
value, so the counts stay bounded however a file spells them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from gpufleet.rightsizing.sample_files import blocks
from gpufleet.rightsizing.usage_stats import MAX_GPUS_TRACKED, MAX_MEMORY_MIB, UsageStats
from gpufleet.tag_keys import WORKLOAD
from gpufleet.text_input import InputFileError

UTILIZATION = "DCGM_FI_DEV_GPU_UTIL"
MEMORY_USED = "DCGM_FI_DEV_FB_USED"
_LABEL = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')
_METRIC_NAME = re.compile(rb"^[A-Za-z_:][A-Za-z0-9_:]*")
# Label sets remembered at once (a file of a few thousand GPUs has that many), and value
# spellings: beyond them, each is parsed again rather than kept.
MAX_LABEL_SETS = 100_000
MAX_SPELLINGS = 100_000
# Milliseconds since 1970 up to the year 9999: anything else is not a sample's time.
MAX_TIMESTAMP_MS = 253_402_300_799_999


def _labels(path: Path, number: int, text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    end = 0
    for match in _LABEL.finditer(text):
        if match.start() != end:
            break
        found[match.group(1)] = match.group(2)
        end = match.end()
    if end != len(text):
        raise InputFileError(
            str(path), f"labels that do not parse: {text[:80]!r}", line=number, field="labels"
        )
    return found


_UTILIZATION, _MEMORY = UTILIZATION.encode(), MEMORY_USED.encode()


class _Reading:
    """One file's reading: label sets parsed once each, then per workload the count of each
    (metric, value) and its first and last time, folded into its histograms at the end."""

    def __init__(self, path: Path, workload: str | None) -> None:
        self.path, self.workload = path, workload
        # Label text -> (workload, GPU).
        self.known: dict[bytes, tuple[str | None, str]] = {}
        self.counts: dict[tuple[str, bool, int], int] = {}
        # Value text -> its checked, rounded value: GPUs report few distinct values.
        self.values: dict[tuple[bool, bytes], int] = {}
        self.times: dict[str, list[int]] = {}
        self.gpus: dict[str, set[str]] = defaultdict(set)
        self.undated: dict[str, int] = defaultdict(int)
        self.unmatched = 0

    def _identify(self, number: int, key: bytes) -> tuple[str | None, str]:
        try:
            text = key.decode("utf-8")
        except UnicodeDecodeError:
            raise InputFileError(str(self.path), "not UTF-8 text", line=number) from None
        labels = _labels(self.path, number, text)
        host = labels.get("Hostname") or labels.get("instance") or ""
        device = labels.get("gpu") or labels.get("UUID") or ""
        found = (self.workload or labels.get(WORKLOAD), f"{host}:{device}")
        if len(self.known) >= MAX_LABEL_SETS:
            self.known.clear()
        self.known[key] = found
        return found

    def _bad(self, number: int, message: str, field: str = "sample") -> InputFileError:
        return InputFileError(str(self.path), message, line=number, field=field)

    def lines(self, block: bytes, first: int) -> None:
        known, counts, times, values = self.known, self.counts, self.times, self.values
        for offset, raw in enumerate(block.split(b"\n")[:-1]):
            if raw[:5] != b"DCGM_":
                stripped = raw.strip()
                if not stripped or stripped[:1] == b"#" or _METRIC_NAME.match(stripped):
                    continue  # comments, blank lines and other metrics
                raise self._bad(first + offset, "not a Prometheus text sample")
            if raw.startswith(_UTILIZATION):
                utilization, rest = True, raw[len(_UTILIZATION) :]
            elif raw.startswith(_MEMORY):
                utilization, rest = False, raw[len(_MEMORY) :]
            else:
                continue  # another DCGM field
            if rest[:1] == b"{":
                key, brace, tail = rest[1:].rpartition(b"}")
                if not brace:
                    raise self._bad(first + offset, "a sample whose labels do not close")
            elif rest[:1] in (b" ", b"\t"):
                key, tail = b"", rest
            else:
                continue  # a longer metric name that starts the same (…_FB_USED_PERCENT)
            words = tail.split()
            if not 1 <= len(words) <= 2:
                raise self._bad(
                    first + offset,
                    "a sample that does not parse (metric{labels} value [timestamp])",
                )
            found = known.get(key) or self._identify(first + offset, key)
            name = found[0]
            if name is None:
                self.unmatched += 1
                continue
            # Keyed by the rounded value: however many spellings a file has, the bins are
            # bounded (101 percents, MiB up to MAX_MEMORY_MIB).
            text = words[0]
            value = values.get((utilization, text))
            if value is None:
                value = self._value(first + offset, utilization, text)
                if len(values) < MAX_SPELLINGS:
                    values[(utilization, text)] = value
            sample = (name, utilization, value)
            counts[sample] = counts.get(sample, 0) + 1
            if len(words) == 2:
                try:
                    stamp = int(words[1]) if len(words[1]) <= 16 else -1
                except ValueError:
                    stamp = -1
                if not 0 <= stamp <= MAX_TIMESTAMP_MS:
                    raise self._bad(first + offset, "not a timestamp in milliseconds")
                span = times.get(name)
                if span is None:
                    times[name] = [stamp, stamp]
                elif stamp < span[0]:
                    span[0] = stamp
                elif stamp > span[1]:
                    span[1] = stamp
            else:
                self.undated[name] += 1
            self.gpus[name].add(found[1])

    def _value(self, number: int, utilization: bool, text: bytes) -> int:
        """The sample's value, rounded: a number a GPU can report, or the line is bad."""
        metric = UTILIZATION if utilization else MEMORY_USED
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if value != value or value < 0 or value == float("inf"):
            shown = text[:40].decode(errors="replace")
            raise self._bad(number, f"not a sample value: {shown!r}", metric)
        if utilization and value > 100:
            raise self._bad(number, f"utilization {value:g} is over 100", metric)
        if not utilization and value > MAX_MEMORY_MIB:
            raise self._bad(number, f"{value:g} MiB used is more than any GPU has", metric)
        return round(value)

    def fold(self, by_workload: dict[str, UsageStats]) -> None:
        for (name, utilization, value), count in self.counts.items():
            stats = by_workload.setdefault(name, UsageStats())
            if utilization:
                stats.utilization[value] += count
            else:
                stats.memory_mib[value] += count
        for name in set(self.times) | set(self.undated) | set(self.gpus):
            stats = by_workload.setdefault(name, UsageStats())
            span = self.times.get(name)
            if span is not None:
                for when in (span[0] / 1000, span[1] / 1000):
                    stats.first = when if stats.first is None else min(stats.first, when)
                    stats.last = when if stats.last is None else max(stats.last, when)
            stats.undated += self.undated.get(name, 0)
            for gpu in self.gpus.get(name, ()):
                if len(stats.gpus) >= MAX_GPUS_TRACKED:
                    break
                stats.gpus.add(gpu)


def read_into(path: Path, by_workload: dict[str, UsageStats], workload: str | None) -> int:
    """Add the GPU samples of ``path`` to ``by_workload`` (the file's ``workload``, else each
    sample's label); the number of samples no workload claims."""
    reading = _Reading(path, workload)
    for data, first in blocks(path):
        reading.lines(data, first)
    reading.fold(by_workload)
    return reading.unmatched

"""nvidia-smi's CSV, as

    nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used,memory.total \\
        --format=csv -l 60 >> gpu.csv

prints it: a header (``timestamp, index, utilization.gpu [%], memory.used [MiB], ...``; any
order, more columns allowed, repeated where files were appended), then a row per GPU per
interval (``2026/11/20 10:00:00.123, 0, 23 %, 8123 MiB, 40960 MiB``). ``[N/A]`` and
``[Not Supported]`` are no value. nvidia-smi writes the machine's local time without a zone:
gpufleet takes it as UTC (run the collector with ``TZ=UTC``). A file holds one workload's GPUs:
the command line says which (``--usage NAME=FILE``).

Read in blocks of whole lines, each split into fields at once and counted by column in C (a
gigabyte of samples is some 18 million rows): values are converted once per distinct value,
and timestamps, which sort as text, only the earliest and the latest. A block the fast path
cannot vouch for (a row of another width, a bad value) is read line by line, which names the
line at fault.
"""

from __future__ import annotations

import calendar
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from gpufleet.rightsizing.sample_files import blocks
from gpufleet.rightsizing.usage_stats import MAX_GPUS_TRACKED, MAX_MEMORY_MIB, UsageStats
from gpufleet.text_input import InputFileError

# The columns read, by the name nvidia-smi gives them (before any " [unit]").
TIMESTAMP, INDEX, UTILIZATION, MEMORY_USED = (
    b"timestamp",
    b"index",
    b"utilization.gpu",
    b"memory.used",
)
_NO_VALUE = {b"", b"[n/a]", b"[not supported]", b"n/a"}
# In every header (the column gpufleet needs most), in no data row.
HEADER_MARK = UTILIZATION


def _number(cell: bytes, unit: bytes) -> float | None:
    value = cell.strip().removesuffix(unit).strip()
    if value.lower() in _NO_VALUE:
        return None
    number = float(value)
    if number != number or number < 0 or number == float("inf"):
        raise ValueError(cell)
    return number


def epoch(timestamp: str) -> float:
    """``2026/11/20 10:00:00.123`` (UTC) as seconds since the epoch."""
    date, _, clock = timestamp.partition(" ")
    year, month, day = (int(x) for x in date.split("/"))
    hour, minute, second = clock.split(":")
    seconds = float(second)
    if not (1 <= month <= 12 and 1 <= day <= 31 and 0 <= seconds < 61):  # nan fails too
        raise ValueError(timestamp)
    if not (0 <= int(hour) < 24 and 0 <= int(minute) < 60 and 1970 <= year <= 9999):
        raise ValueError(timestamp)
    whole = calendar.timegm((year, month, day, int(hour), int(minute), 0, 0, 0, 0))
    return whole + seconds


def _header(path: Path, number: int, row: list[bytes]) -> dict[bytes, int]:
    names = [cell.split(b" [", 1)[0].strip().lower() for cell in row]
    missing = [c.decode() for c in (INDEX, UTILIZATION, MEMORY_USED) if c not in names]
    if missing:
        raise InputFileError(
            str(path),
            f"the header lacks {', '.join(missing)}; query "
            "timestamp,index,utilization.gpu,memory.used,memory.total",
            line=number,
            field="header",
        )
    return {name: i for i, name in enumerate(names)}


class _Reading:
    """One file's reading: its header's columns, its earliest and latest timestamps."""

    def __init__(self, path: Path, stats: UsageStats) -> None:
        self.path, self.stats = path, stats
        self.columns: dict[bytes, int] | None = None
        self.width = 0
        self.earliest: bytes | None = None
        self.latest: bytes | None = None

    def header(self, number: int, row: list[bytes]) -> None:
        self.columns = _header(self.path, number, row)
        self.width = len(row)

    def times(self, stamps: Iterable[bytes], number: int) -> None:
        """Keep the earliest and latest of ``stamps`` (which sort as text); check they parse."""
        given = list(stamps)
        dated = [s for s in given if s.lower() not in _NO_VALUE]
        self.stats.undated += len(given) - len(dated)
        if not dated:
            return
        low, high = min(dated), max(dated)
        if self.earliest is None or low < self.earliest:
            _check_time(self.path, number, low)
            self.earliest = low
        if self.latest is None or high > self.latest:
            _check_time(self.path, number, high)
            self.latest = high

    def chunk(self, data: bytes, first_line: int) -> None:
        """Rows ``data`` holds (whole lines), the first being line ``first_line``: runs of plain
        rows at C speed, headers (and any run the fast path will not vouch for) line by line."""
        at, line = 0, first_line
        while at < len(data):
            mark = data.find(HEADER_MARK, at)
            # The header's line starts after the last newline before its mark (or at ``at``).
            end = len(data) if mark < 0 else max(at, data.rfind(b"\n", at, mark) + 1)
            if end > at:
                segment = data[at:end]
                if self.columns is None or not self._fast(segment, line):
                    for offset, raw in enumerate(segment.split(b"\n")[:-1]):
                        self._line(line + offset, raw)
                line += segment.count(b"\n")
            if mark < 0:
                return
            stop = data.find(b"\n", mark) + 1 or len(data)
            self._line(line, data[end:stop].rstrip(b"\n"))
            line += 1
            at = stop

    def _fast(self, data: bytes, first_line: int) -> bool:
        """Every line of ``data`` split at once (newlines made commas, then one split, in C):
        with the header's number of columns on every line, column ``c`` is every ``width``-th
        field. False (the slow path then) when the counts do not add up or a value is bad."""
        columns, width = self.columns, self.width
        assert columns is not None
        rows = data.count(b"\n")
        fields = data.replace(b"\n", b",").split(b",")
        if len(fields) != rows * width + 1:
            return False  # a row of another width somewhere: the slow path says which
        try:
            busy = _counted(fields[columns[UTILIZATION] :: width], b"%", 100)
            used = _counted(fields[columns[MEMORY_USED] :: width], b"MiB", MAX_MEMORY_MIB)
        except ValueError:
            return False
        for percent, count in busy.items():
            self.stats.utilization[round(percent)] += count
        for mib, count in used.items():
            self.stats.memory_mib[round(mib)] += count
        when = columns.get(TIMESTAMP)
        if when is not None:
            stamps = fields[when::width][:rows]
            low, high = min(stamps).strip(), max(stamps).strip()
            if low.lower() in _NO_VALUE or high.lower() in _NO_VALUE:
                self.times([s.strip() for s in stamps], first_line)  # some undated: rare
            else:
                self.times((low, high), first_line)
        gpus = self.stats.gpus
        if len(gpus) < MAX_GPUS_TRACKED:
            name = self.path.name
            for index in set(fields[columns[INDEX] :: width][:rows]):
                gpus.add(f"{name}:{index.strip().decode(errors='replace')}")
        return True

    def _line(self, number: int, raw: bytes) -> None:
        row = raw.rstrip(b"\r").split(b",")
        first = row[0].strip().lower().removeprefix(b"\xef\xbb\xbf")
        if HEADER_MARK in raw:
            self.header(number, [first, *row[1:]])
            return
        if len(row) == 1 and not first:
            return
        columns = self.columns
        if columns is None:
            raise InputFileError(
                str(self.path), "a row before any header (use --format=csv)", line=number
            )
        if len(row) < self.width:
            raise InputFileError(
                str(self.path),
                f"{len(row)} columns where the header has {self.width}",
                line=number,
                field="row",
            )
        for column, unit, most in ((UTILIZATION, b"%", 100), (MEMORY_USED, b"MiB", MAX_MEMORY_MIB)):
            cell = row[columns[column]]
            try:
                value = _number(cell, unit)
            except ValueError:
                shown = cell.strip()[:60].decode(errors="replace")
                raise InputFileError(
                    str(self.path),
                    f"not a {column.decode()} value: {shown!r}",
                    line=number,
                    field=column.decode(),
                ) from None
            if value is not None and most is not None and value > most:
                raise InputFileError(
                    str(self.path),
                    f"{column.decode()} {value:g} is over {most}",
                    line=number,
                    field=column.decode(),
                )
            if value is None:
                continue
            if column == UTILIZATION:
                self.stats.utilization[round(value)] += 1
            else:
                self.stats.memory_mib[round(value)] += 1
        when = columns.get(TIMESTAMP)
        self.times([row[when].strip()] if when is not None else [b""], number)
        if len(self.stats.gpus) < MAX_GPUS_TRACKED:
            index = row[columns[INDEX]].strip().decode(errors="replace")
            self.stats.gpus.add(f"{self.path.name}:{index}")

    def finish(self) -> None:
        for stamp in (self.earliest, self.latest):
            if stamp is not None:
                seconds = epoch(stamp.decode())
                first, last = self.stats.first, self.stats.last
                self.stats.first = seconds if first is None else min(first, seconds)
                self.stats.last = seconds if last is None else max(last, seconds)


def _counted(cells: Iterable[bytes], unit: bytes, most: float | None) -> dict[float, int]:
    """How many times each value appears in ``cells`` (values converted once each); no value
    ([N/A]) is left out. ValueError on a cell that is not a value or is over ``most``."""
    found: dict[float, int] = {}
    for cell, count in Counter(cells).items():
        value = _number(cell, unit)
        if value is None:
            continue
        if most is not None and value > most:
            raise ValueError(cell)
        found[value] = found.get(value, 0) + count
    return found


def read_into(path: Path, stats: UsageStats) -> None:
    """Add every GPU sample of ``path`` to ``stats``, in blocks of whole lines."""
    reading = _Reading(path, stats)
    for data, first in blocks(path):
        reading.chunk(data, first)
    reading.finish()


def _check_time(path: Path, number: int, stamp: bytes) -> None:
    """A timestamp that will be parsed (the earliest or latest so far) must parse."""
    try:
        epoch(stamp.decode())
    except (ValueError, UnicodeDecodeError):
        raise InputFileError(
            str(path),
            f"not a timestamp (YYYY/MM/DD HH:MM:SS.mmm): {stamp[:40].decode(errors='replace')!r}",
            line=number,
            field="timestamp",
        ) from None

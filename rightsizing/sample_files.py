"""Sample files read as streams: any size, in blocks of whole lines, bounded memory.

A file is opened as ``text_input`` opens a user's files (a regular file only: a FIFO would
block), then read in blocks of ``BLOCK_BYTES`` cut at their last newline (``blocks``), no line
longer than ``MAX_LINE_BYTES``; a problem is an ``InputFileError`` naming the file and the
line. Each reader parses a block's lines together. Which reader a file takes is decided by its
first line (``detect``): nvidia-smi's CSV header, or Prometheus text.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from gpufleet.text_input import InputFileError

MAX_LINE_BYTES = 64 * 1024
# Read this much at a time: the lines of a block are parsed together.
BLOCK_BYTES = 8 << 20
SampleFormat = Literal["nvidia-smi", "dcgm"]


def blocks(path: Path, size: int | None = None) -> Iterator[tuple[bytes, int]]:
    """(whole lines, each ending in a newline; the first one's line number) of ``path``,
    streamed ``size`` (default ``BLOCK_BYTES``) bytes at a time."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise InputFileError(str(path), f"cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputFileError(str(path), "cannot read: not a regular file")
    carry, line = b"", 1
    with os.fdopen(fd, "rb", buffering=0) as handle:
        while True:
            try:
                block = handle.read(size or BLOCK_BYTES)
            except OSError as exc:
                raise InputFileError(
                    str(path), f"cannot read: {exc.strerror or exc}", line=line
                ) from None
            data = carry + block
            if not block and data and not data.endswith(b"\n"):
                data += b"\n"  # the last line, without its newline
            cut = data.rfind(b"\n") + 1
            whole, carry = data[:cut], data[cut:]
            if whole:
                yield whole, line
                line += whole.count(b"\n")
            if len(carry) > MAX_LINE_BYTES:
                raise InputFileError(
                    str(path), f"a line longer than {MAX_LINE_BYTES:,} bytes", line=line
                )
            if not block:
                return


def detect(path: Path) -> SampleFormat:
    """Which kind of samples ``path`` holds, from its first line that is not blank (read from
    its first block only)."""
    for data, first in blocks(path, MAX_LINE_BYTES + 1):
        for offset, raw in enumerate(data.split(b"\n")[:-1]):
            number = first + offset
            try:
                text = raw.decode("utf-8").removeprefix("\ufeff").strip()
            except UnicodeDecodeError:
                raise InputFileError(str(path), "not UTF-8 text", line=number) from None
            if not text:
                continue
            if "utilization.gpu" in text.lower():
                return "nvidia-smi"
            if text.startswith("#") or text.startswith("DCGM_"):
                return "dcgm"
            raise InputFileError(
                str(path),
                "not nvidia-smi CSV (a header naming utilization.gpu) nor DCGM exporter text "
                "(lines of DCGM_FI_DEV_* metrics)",
                line=number,
            )
    raise InputFileError(str(path), "no samples: the file is empty")

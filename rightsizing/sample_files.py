"""Sample files read as streams: any size, one line at a time, bounded memory.

A file is opened as ``text_input`` opens a user's files (a regular file only: a FIFO would
block), then read line by line in binary, each line at most ``MAX_LINE_BYTES`` and UTF-8;
anything else is an ``InputFileError`` naming the file and the line. Which reader a file takes
is decided by its first line (``detect``): nvidia-smi's CSV header, or Prometheus text.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from gpufleet.text_input import InputFileError

MAX_LINE_BYTES = 64 * 1024
SampleFormat = Literal["nvidia-smi", "dcgm"]


def lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text without its newline) of ``path``, streamed."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise InputFileError(str(path), f"cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputFileError(str(path), "cannot read: not a regular file")
    with os.fdopen(fd, "rb", buffering=1 << 20) as handle:
        number = 0
        while True:
            try:
                raw = handle.readline(MAX_LINE_BYTES + 1)
            except OSError as exc:
                raise InputFileError(
                    str(path), f"cannot read: {exc.strerror or exc}", line=number + 1
                ) from None
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                raise InputFileError(
                    str(path), f"a line longer than {MAX_LINE_BYTES:,} bytes", line=number
                )
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise InputFileError(str(path), "not UTF-8 text", line=number) from None
            if number == 1:
                text = text.removeprefix("\ufeff")
            yield number, text.rstrip("\r\n")


def detect(path: Path) -> SampleFormat:
    """Which kind of samples ``path`` holds, from its first line that is not blank."""
    for number, text in lines(path):
        stripped = text.strip()
        if not stripped:
            continue
        if "utilization.gpu" in stripped.lower():
            return "nvidia-smi"
        if stripped.startswith("#") or stripped.startswith("DCGM_"):
            return "dcgm"
        raise InputFileError(
            str(path),
            "not nvidia-smi CSV (a header naming utilization.gpu) nor DCGM exporter text "
            "(lines of DCGM_FI_DEV_* metrics)",
            line=number,
        )
    raise InputFileError(str(path), "no samples: the file is empty")

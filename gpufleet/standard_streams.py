"""Standard output and error as the console script uses them, whatever they are connected to.

A command's output can go where it cannot be written: ``> /dev/full`` (ENOSPC), a full disk or
quota, a file descriptor the caller closed (``>&-``), a reader that went away (``| head``).
Each is said in one line on stderr with exit status 2 (the output, not the input, is what
failed; never 1, which means "violations found"), except a reader that went away: nothing is
left to tell it, so gpufleet stops quietly with the shell's status for SIGPIPE (141).

A standard descriptor left closed is opened on ``/dev/null`` before anything else runs, so no
file gpufleet opens later takes its number (a report or a child's pipe would otherwise become
"standard output" for a policy pack process it starts).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import sys
from pathlib import Path
from typing import TextIO

# The shell's status for a process ended by SIGPIPE (128 + 13).
BROKEN_PIPE_STATUS = 141
OUTPUT_FAILED_STATUS = 2
CLOSED_REASON = "it is closed; send it somewhere (> FILE, or > /dev/null to discard it)"


class OutputFailed(Exception):  # noqa: N818 - not an error of the program: of where it writes
    """Standard output cannot be written; ``reason`` says why (the OS's words), or the reader
    went away (``reader_gone``: a closed pipe)."""

    def __init__(self, reason: str, *, reader_gone: bool = False) -> None:
        self.reason = reason
        self.reader_gone = reader_gone
        super().__init__(f"gpufleet: cannot write to standard output: {reason}")


class _CheckedOutput(io.FileIO):
    """File descriptor 1, raising ``OutputFailed`` when a write fails: not an OSError, which
    code writing files may catch and take for its own (click takes a closed pipe for exit
    status 1, which means "violations found")."""

    def write(self, data: object) -> int:
        try:
            return super().write(data)  # type: ignore[arg-type]
        except OSError as exc:
            gone = isinstance(exc, BrokenPipeError) or exc.errno == errno.EPIPE
            raise OutputFailed(exc.strerror or str(exc), reader_gone=gone) from None


class _QuietError(io.FileIO):
    """File descriptor 2, dropping what cannot be written: there is nowhere else to say it,
    and the exit status still tells."""

    def write(self, data: object) -> int:
        try:
            return super().write(data)  # type: ignore[arg-type]
        except OSError:
            return len(data)  # type: ignore[arg-type]


def guard_standard_streams() -> None:
    """Set up stdin, stdout and stderr for the console script. A closed standard output fails
    only when something is written to it (``check --output FILE`` needs none)."""
    closed = [fd for fd in (0, 1, 2) if not _is_open(fd)]
    for fd in closed:
        _open_on_null(fd)
    if 0 in closed or sys.stdin is None:
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - the process's own
    output = _ClosedOutput if 1 in closed else _CheckedOutput
    sys.stdout = _text(output(1, "w", closefd=False), sys.stdout)
    sys.stderr = _text(_QuietError(2, "w", closefd=False), sys.stderr, line_buffering=True)


class _ClosedOutput(io.FileIO):
    """File descriptor 1 when the caller closed it (now on /dev/null, so that no file takes
    its number): any write is ``OutputFailed``."""

    def write(self, data: object) -> int:
        raise OutputFailed(CLOSED_REASON)


def discard_pending_output() -> None:
    """Drop what standard output still buffers, after it failed: flushing it again at exit
    would only fail again."""
    with contextlib.suppress(OSError):
        sys.stdout = Path(os.devnull).open("w", encoding="utf-8")  # noqa: SIM115 - to the end


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _open_on_null(fd: int) -> None:
    null = os.open(os.devnull, os.O_RDWR)
    if null != fd:
        os.dup2(null, fd)
        os.close(null)


def _text(raw: io.FileIO, was: TextIO | None, *, line_buffering: bool = False) -> TextIO:
    """``raw`` as a text stream, with the encoding and error handling the interpreter chose
    for the stream it replaces."""
    encoding = getattr(was, "encoding", None) or "utf-8"
    errors = getattr(was, "errors", None) or "strict"
    buffered = io.BufferedWriter(raw)
    wrapped = io.TextIOWrapper(
        buffered,
        encoding=encoding,
        errors=errors,
        line_buffering=line_buffering or bool(getattr(was, "line_buffering", False)),
        write_through=False,
    )
    return wrapped

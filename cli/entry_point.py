"""The ``gpufleet`` console script: run the command, then end the process without teardown.

Commands that run a Pulumi program import the cloud SDKs: some 380,000 objects, whose
teardown when the interpreter exits takes about a second here — a fifth of a whole
``gpufleet check``. Once the command has returned, its output is printed and its files are
written (atomically, closed), so after running the exit handlers and flushing, the process
ends with ``os._exit`` and skips that teardown. A crash still propagates with its traceback;
tests calling ``main`` through click's runner are unaffected.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys

from gpufleet.cli.main import main
from gpufleet.process_signals import exit_on_terminating_signals
from gpufleet.standard_streams import (
    BROKEN_PIPE_STATUS,
    OUTPUT_FAILED_STATUS,
    OutputFailed,
    discard_pending_output,
    guard_standard_streams,
)


def run() -> None:
    # Stopped by a CI runner (SIGTERM) or a closed terminal (SIGHUP): unwind as on an error,
    # so a program's process group is killed and no temporary file stays behind.
    exit_on_terminating_signals()
    guard_standard_streams()
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = _exit_status(exc.code)
    except OutputFailed as exc:
        code = _output_failed(exc)
    # Private, but the one way to run the handlers (the runtime loop's close among them)
    # without the rest of interpreter shutdown; os._exit would skip them.
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except OutputFailed as exc:
        code = _output_failed(exc)
    with contextlib.suppress(OSError):
        sys.stderr.flush()
    os._exit(code)


def _output_failed(exc: OutputFailed) -> int:
    """One line, unless the reader went away (``| head``): nothing more to tell it."""
    discard_pending_output()
    if exc.reader_gone:
        return BROKEN_PIPE_STATUS
    print(exc, file=sys.stderr, flush=True)
    return OUTPUT_FAILED_STATUS


def _exit_status(code: object) -> int:
    """As the interpreter turns a SystemExit into a status."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1

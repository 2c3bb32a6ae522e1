"""The signals that ask gpufleet to stop (SIGTERM from a CI runner, SIGHUP from a closed
terminal, SIGINT from Ctrl-C), turned into ``SystemExit(128 + n)`` so that stopping unwinds as
an error does — ``finally`` blocks kill a program's process group and remove temporary files —
and ends with the shell's status for the signal and one line saying so: never 0, and never 1,
which means "violations found"."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType

TERMINATING_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def exit_on_terminating_signals() -> None:
    """For the whole process (the console script)."""
    for number in TERMINATING_SIGNALS:
        signal.signal(number, _exit_on_signal)


@contextlib.contextmanager
def signals_as_exit() -> Iterator[None]:
    """For a stretch of code that must clean up (a library call, a test runner): installed
    only where the signal still has its default action, and put back after; a handler the
    process already has decides for itself."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    for number in TERMINATING_SIGNALS:
        if signal.getsignal(number) == signal.SIG_DFL:
            previous[number] = signal.signal(number, _exit_on_signal)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _exit_on_signal(number: int, _frame: FrameType | None) -> None:
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(f"gpufleet: stopped by {signal.Signals(number).name}\n")
    raise SystemExit(128 + number)

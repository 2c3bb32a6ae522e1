"""A spinner on stderr while a long step runs (a program run by check, preview or cost takes
15-90 s on a big stack): shown only when stderr is a terminal, only once the step has taken a
couple of seconds, and gone when it ends, so pipes, CI logs and quick runs never see it.
``GPUFLEET_PROGRESS_AFTER`` sets the delay in seconds (0: at once)."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator

PROGRESS_AFTER_ENV = "GPUFLEET_PROGRESS_AFTER"
DEFAULT_DELAY_SECONDS = 2.0


@contextlib.contextmanager
def activity(message: str) -> Iterator[None]:
    """``message`` with a spinner and the time taken, while the block runs."""
    stream = sys.stderr
    if not _is_terminal(stream) or os.environ.get("TERM") == "dumb":
        yield
        return
    from rich.console import Console

    from gpufleet.cli.tables import no_color
    from gpufleet.terminal_text import escape_controls

    console = Console(
        file=stream, highlight=False, markup=False, color_system=None if no_color() else "auto"
    )
    status = console.status(escape_controls(message), spinner="dots")
    lock = threading.Lock()
    done = threading.Event()
    started = False

    def start() -> None:
        nonlocal started
        with lock:
            if not done.is_set():
                status.start()
                started = True

    timer = threading.Timer(_delay(), start)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            done.set()
            timer.cancel()
            if started:
                status.stop()


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except (OSError, ValueError):
        return False


def _delay() -> float:
    try:
        value = float(os.environ.get(PROGRESS_AFTER_ENV, DEFAULT_DELAY_SECONDS))
    except ValueError:
        return DEFAULT_DELAY_SECONDS
    return value if 0 <= value < 3600 else DEFAULT_DELAY_SECONDS

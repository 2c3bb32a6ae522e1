"""Bounds on a program run by the offline engine, shared by the engine and the CLI's options
(importing nothing, so ``--help`` stays fast)."""

from __future__ import annotations

# How long a program may run before it is stopped (``--timeout``); the example's prod stack
# takes a few seconds.
DEFAULT_TIMEOUT_SECONDS = 120.0
# How much of a program's own stdout and stderr is kept (the end of each).
MAX_OUTPUT_BYTES = 64 * 1024

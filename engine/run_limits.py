"""Bounds on a program run by the offline engine, shared by the engine and the CLI's options
(importing nothing, so ``--help`` stays fast)."""

from __future__ import annotations

# How long a program may run before it is stopped (``--timeout``); the example's prod stack
# takes a few seconds.
DEFAULT_TIMEOUT_SECONDS = 120.0
# How much of a program's own stdout and stderr is kept (the end of each).
MAX_OUTPUT_BYTES = 64 * 1024
# What a program may make gpufleet hold: resources, and bytes of their inputs as sent (the
# example's prod stack is 61 resources, about 100 KB).
MAX_REGISTRATIONS = 100_000
MAX_REQUEST_BYTES = 32 * 2**20
# How much of an ending's text (an exception message) is kept, on one line.
MAX_ENDING_CHARS = 500
# The most memory (address space) the program's process may take: a runaway program fails
# there rather than taking the machine; the example's prod stack needs well under 1 GiB.
MAX_PROGRAM_MEMORY_BYTES = 4 * 2**30

"""Helper processes that die with gpufleet: the program's process and the policy pack's.

gpufleet kills its helpers when it ends (``finally`` blocks, a SIGTERM turned into an exit),
but a SIGKILL runs no ``finally``: without this, a pack server or a program would be left
running, orphaned. On Linux a process can ask the kernel to send it SIGKILL when its parent
dies (``prctl(PR_SET_PDEATHSIG)``); a parent that died before the request was made is seen by
the parent pid no longer being the one given. Elsewhere (no ``prctl``) nothing is done: the
parent's own clean-up is all there is.

The request holds while the thread that started the helper lives: gpufleet starts and waits
for each helper in the same thread.

Standard library only, and runnable as a script by any Python 3 interpreter (a policy pack may
run where gpufleet is not installed): ``python parent_death.py PARENT_PID MODULE [ARGS...]``
makes the request, sets the variables the parent left in a file (``load_environment_file``),
then runs MODULE as ``python -m MODULE ARGS...`` would.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import runpy
import signal
import sys
from pathlib import Path

_PR_SET_PDEATHSIG = 1
# The status of a helper whose parent was gone before it could ask to die with it.
ORPHANED_STATUS = 125


def die_with_parent(parent_pid: int) -> bool:
    """Ask for SIGKILL when the parent dies; end this process now if the parent is already
    gone (no longer ``parent_pid``). False where the request cannot be made."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):  # not Linux
        return False
    if prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        return False
    # The parent may have died between this process's start and the request, which then never
    # fires: this process was handed to another (init, a subreaper).
    if os.getppid() != parent_pid:
        os._exit(ORPHANED_STATUS)
    return True


# The file of environment variables too large for ``execve``: Linux caps one variable at
# 128 KiB (MAX_ARG_STRLEN), and a 400-workload stack's config in PULUMI_CONFIG is larger.
# The parent writes them to a file only it can read and names it here; a helper sets them
# first thing, then removes the file.
ENVIRONMENT_FILE = "GPUFLEET_ENVIRONMENT_FILE"


def load_environment_file() -> None:
    """Set the variables of the file ``ENVIRONMENT_FILE`` names (a JSON object), if any."""
    import json

    path = os.environ.pop(ENVIRONMENT_FILE, None)
    if not path:
        return
    file = Path(path)
    values = json.loads(file.read_text(encoding="utf-8"))
    with contextlib.suppress(OSError):
        file.unlink()
    os.environ.update({str(k): str(v) for k, v in values.items()})


def _run_module(argv: list[str]) -> None:
    parent_pid, module, *arguments = argv
    die_with_parent(int(parent_pid))
    load_environment_file()
    # As ``python -m`` sets them: the module's arguments, and the working directory first on
    # the path instead of this file's directory (unless -P or -I asked for neither).
    sys.argv = [module, *arguments]
    if getattr(sys.flags, "safe_path", False):
        del sys.path[0]
    else:
        sys.path[0] = str(Path.cwd())
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    _run_module(sys.argv[1:])

"""The process a Pulumi program runs in for the offline engine (``program_process``): the
language host's part, as ``pulumi-language-python-exec`` plays it for the Pulumi CLI.

``python -m gpufleet.engine.program_child --monitor ADDR --project P --stack S
--dry-run true|false --pwd DIR --report-fd N --start-fd M --parent-pid PID PROGRAM`` runs
PROGRAM as ``__main__`` from DIR against the resource monitor at ADDR, with the config the
parent put in ``PULUMI_CONFIG`` / ``PULUMI_CONFIG_SECRET_KEYS``, once a byte arrives on M (the
runtime is set up before: that overlaps the parent's own work before the program may run).
How the program ended goes to file descriptor N as one JSON line: ``completed``; ``raised``
(what and where); ``sys_exit`` / ``os_exit`` (the status, and the program line that called it).
The program can write to N too, or leave no line at all: the parent trusts only the resources
it was sent, and counts a run as finished only when this process also exits 0 after saying
``completed``.

It dies with its parent (PID, gpufleet: ``parent_death``), so a gpufleet that is killed leaves
no program running; ``secure:`` config reads as ``secret_config`` says.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import contextlib
import gc
import json
import logging
import os
import posix
import resource
import runpy
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import IO, Any

from gpufleet.engine.parent_death import die_with_parent, load_environment_file
from gpufleet.engine.run_limits import MAX_PROGRAM_MEMORY_BYTES


def _report(stream: IO[str], **ending: Any) -> None:
    # On a line of its own, whatever the program left unfinished on the stream.
    stream.write("\n" + json.dumps(ending, default=_text) + "\n")
    stream.flush()


def _text(value: object) -> str:
    """``str(value)``, even of an object whose ``__str__`` raises."""
    try:
        return str(value)
    except Exception:
        return f"<{type(value).__name__} that cannot be shown>"


def _program_line(program_dir: Path, frames: list[tuple[FrameType, int]]) -> str | None:
    """``file:line`` of the innermost frame in the program's directory."""
    found = None
    for frame, line in frames:
        path = Path(frame.f_code.co_filename)
        if path.is_absolute() and path.resolve().is_relative_to(program_dir):
            found = f"{path.name}:{line}"
    return found


def _stack_frames(frame: FrameType | None) -> list[tuple[FrameType, int]]:
    frames = []
    while frame is not None:
        frames.append((frame, frame.f_lineno))
        frame = frame.f_back
    return list(reversed(frames))


def _guard_os_exit(report: IO[str], program_dir: Path) -> Callable[[int], None]:
    """Have ``os._exit`` say where it was called before it ends the process; the real one."""
    real_exit = os._exit

    def recorded_exit(status: int) -> None:
        where = _program_line(program_dir, _stack_frames(sys._getframe(1)))
        _report(report, ending="os_exit", status=status, where=where)
        real_exit(status)

    os._exit = recorded_exit
    posix._exit = recorded_exit
    return real_exit


def _limit_memory() -> None:
    """Cap the address space before the program runs: a runaway program gets MemoryError."""
    limit = MAX_PROGRAM_MEMORY_BYTES
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


# Full collections after this many collections of the middle generation (CPython: 10).
_FULL_COLLECTION_AFTER = 1000


def _collect_old_objects_rarely() -> None:
    """Put off the collector's full collections; keep its young ones as they are.

    A program imports the cloud SDKs: some 380,000 objects (classes, annotations, enums) that
    live as long as the process. With CPython's default thresholds the import spree triggers
    full collections that walk every one of them and free almost nothing: six, about a second
    of the three that the example's SDK imports take here. Cycles that die young (most cyclic
    garbage) are freed as soon as before; only what survives the middle generation waits
    longer, and the address-space cap (``_limit_memory``) still bounds a program.
    """
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, _FULL_COLLECTION_AFTER)


def _end_without_teardown(real_exit: Callable[[int], None]) -> None:
    """End a finished program's process once its threads are joined and its exit handlers
    have run, skipping interpreter teardown.

    Tearing down the cloud SDKs' objects (``_collect_old_objects_rarely``) takes about a
    second here, and the parent waits for this process to end before it reads the capture:
    a fifth of a whole ``gpufleet cost``. Nothing in this process needs it; the program's
    output is flushed first. A program that unregisters this handler ends the slow way.
    """
    for stream in (sys.stdout, sys.stderr):
        # A stream the program closed or a reader that went away: nothing more to say.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    real_exit(0)


async def _wait_for_rpcs(await_all_outstanding_tasks: bool = True) -> None:
    """``pulumi.runtime.stack.wait_for_rpcs``, waiting for the pending outputs all at once.

    The SDK's waits for the first of them to finish, then again for the rest: each wait
    registers a callback on every task still pending, so when calls to an engine in another
    process finish one by one, thousands of outputs cost millions of callbacks (2,400
    resources: 40 s instead of 15). Waiting for all of them finishes the same tasks, in any
    order, and re-raises the same errors; new outputs are picked up on the next round.
    """
    from pulumi.runtime.settings import SETTINGS, _get_rpc_manager

    # The SDK's contextproperty decorator hides these attributes' types from type checkers.
    settings: Any = SETTINGS
    rpc_manager = _get_rpc_manager()
    while True:
        while rpc_manager.rpcs:
            await asyncio.sleep(0)
            await rpc_manager.rpcs.pop()
        if rpc_manager.unhandled_exception is not None:
            raise rpc_manager.unhandled_exception.with_traceback(rpc_manager.exception_traceback)
        while await_all_outstanding_tasks:
            with settings.lock:
                pending: list[asyncio.Task[Any]] = list(settings.outputs)
                settings.outputs.clear()
            if not pending:
                break
            await asyncio.wait(pending)
            for task in pending:
                await task
        if not rpc_manager.rpcs:
            break


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="gpufleet.engine.program_child")
    for option in ("--monitor", "--project", "--stack", "--pwd"):
        parser.add_argument(option, required=True)
    parser.add_argument("--dry-run", choices=("true", "false"), required=True)
    parser.add_argument("--report-fd", type=int, required=True)
    parser.add_argument("--start-fd", type=int, required=True)
    parser.add_argument("--parent-pid", type=int, required=True)
    parser.add_argument("program")
    args = parser.parse_args(argv)
    die_with_parent(args.parent_pid)
    load_environment_file()  # PULUMI_CONFIG, which may be too large to pass as a variable
    _collect_old_objects_rarely()
    report = os.fdopen(args.report_fd, "w", encoding="utf-8")
    program_dir = Path(args.pwd).resolve()
    real_exit = _guard_os_exit(report, program_dir)
    _limit_memory()

    import pulumi
    import pulumi.runtime
    import pulumi.runtime.stack

    from gpufleet.engine import secret_config

    pulumi.runtime.stack.wait_for_rpcs = _wait_for_rpcs
    secret_config.install()

    pulumi.runtime.set_all_config(
        pulumi.runtime.get_config_env(), pulumi.runtime.get_config_secret_keys_env()
    )
    pulumi.runtime.configure(
        pulumi.runtime.Settings(
            monitor=args.monitor,
            # No engine service: it would only take the program's log messages, one call per
            # debug line (thousands on a large stack). Without it the SDK drops debug lines and
            # prints warnings and errors on the program's stderr, which the parent shows.
            engine=None,
            project=args.project,
            stack=args.stack,
            parallel=4,
            dry_run=args.dry_run == "true",
        )
    )
    # Ready: the program runs when the parent says (it may first have files of its own to
    # read, which the program could rewrite); a parent that gave up closes the pipe instead.
    with os.fdopen(args.start_fd, "rb") as start:
        if not start.read(1):
            real_exit(3)
    # Registered before the program's own exit handlers, so it runs after them (last in,
    # first out), and only on the way out of a finished program: the failures leave through
    # ``real_exit`` first.
    atexit.register(_end_without_teardown, real_exit)
    sys.argv = [args.program]
    os.chdir(program_dir)
    sys.path.insert(0, str(program_dir))
    # As the language host does: a program that fails leaves futures unobserved, which asyncio
    # would complain of on stderr.
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    status = 1
    try:

        def program() -> None:
            runpy.run_path(args.program, run_name="__main__")

        loop.run_until_complete(pulumi.runtime.run_in_stack(program))
        _report(report, ending="completed")
        status = 0
    except SystemExit as exc:
        frames = list(traceback.walk_tb(exc.__traceback__))
        code = exc.code
        _report(
            report,
            ending="sys_exit",
            status=code if isinstance(code, int) or code is None else str(code),
            where=_program_line(program_dir, frames),
        )
    except BaseException as exc:  # whatever the program raised is reported
        from gpufleet.engine.program_dir import blame

        resource, location = blame(exc, program_dir)
        _report(
            report,
            ending="raised",
            error_type=type(exc).__name__,
            message=_text(exc),
            resource=resource,
            location=location,
        )
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    if status:
        # Straight out: nothing more of a failed program is worth waiting for.
        real_exit(status)
    # A finished program ends as the language host ends it: its threads joined and its exit
    # handlers run, which may still register resources (the engine takes them until then);
    # then ``_end_without_teardown``.
    loop.close()
    sys.exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])

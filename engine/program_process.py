"""Run a Pulumi program in a process of its own, against this process's offline engine.

The program is untrusted code: it runs in a child process (``program_child``), in a session
of its own, and reaches this one only through the resource-monitor protocol
(``monitor_server``), so it cannot patch the checker or write into its output. It can signal
this process (its parent), which then ends non-zero, never with a pass, and the child dies
with it (``parent_death``). Each resource it registers is recorded here as it arrives;
whatever happens to the program, what it registered until then is kept.

How the program ended (``ProgramEnding``) is judged here: it finished only when the child
said so and then exited 0. An early ``sys.exit`` or ``os._exit`` (whatever the status), an
exception, a signal, or running past the timeout is not finished, said in one line with the
program line where known. The program's own stdout and stderr are kept (the last
``MAX_OUTPUT_BYTES`` of each) for the caller to show apart from machine-readable output.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pulumi
from google.protobuf import empty_pb2
from pulumi.runtime.mocks import MockEngine, MockSettings
from pulumi.runtime.settings import ROOT, configure

from gpufleet.engine.capture import Capture, CaptureMonitor, RealisticMocks
from gpufleet.engine.helper_environment import helper_environment
from gpufleet.engine.monitor_server import MonitorServer
from gpufleet.engine.run_limits import (
    DEFAULT_TIMEOUT_SECONDS,
    MAX_ENDING_CHARS,
    MAX_OUTPUT_BYTES,
    MAX_REGISTRATIONS,
    MAX_REQUEST_BYTES,
)
from gpufleet.engine.wire import keeping_secrets
from gpufleet.terminal_text import escape_controls

_MAX_REPORT_BYTES = 64 * 1024


@dataclass(frozen=True)
class Raised:
    """What a program raised: the exception's type and message, the resource it was
    building, the program line (``program_dir.blame``)."""

    error_type: str
    message: str
    resource: str | None
    location: str | None


@dataclass(frozen=True)
class ProgramEnding:
    """How a program run ended: ``finished``, or why not, in one line."""

    finished: bool
    summary: str  # for people: "finished", "called sys.exit(0) at __main__.py:9 before ..."
    raised: Raised | None = None


@dataclass(frozen=True)
class ProgramRun:
    capture: Capture
    ending: ProgramEnding
    stdout: str  # the program's own output (its tail), never the command's
    stderr: str  # with the warnings and errors it logged (pulumi.log)


class _Tail:
    """Reads a stream to its end in a thread, keeping its last ``limit`` bytes."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._limit = limit
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[bytes]) -> None:
        with stream:
            while chunk := stream.read(8192):
                self._chunks.append(chunk)
                self._size += len(chunk)
                while self._size - len(self._chunks[0]) >= self._limit:
                    self._size -= len(self._chunks.popleft())

    def text(self, timeout: float = 1.0) -> str:
        self._thread.join(timeout)
        data = b"".join(self._chunks)[-self._limit :]
        return data.decode("utf-8", errors="replace")


def run_program_process(
    main: Path,
    run_dir: Path,
    *,
    project: str,
    stack: str,
    preview: bool,
    config: dict[str, str],
    secret_keys: list[str],
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    stack_references: dict[str, dict[str, Any]] | None = None,
    before_start: Callable[[], object] | None = None,
) -> ProgramRun:
    """Run the program ``main`` from ``run_dir`` in a process of its own; ``stack_references``
    (``stack_references.read_stack_references``): what its StackReferences read.
    ``before_start``: what must be done before the program's own code runs (the policy pack
    loading its files, which the program could rewrite); the child starts its interpreter
    and the Pulumi runtime meanwhile, and runs the program only once it has returned."""
    the_mocks = RealisticMocks(preview, stack_references)
    monitor = CaptureMonitor(
        the_mocks, max_registrations=MAX_REGISTRATIONS, max_request_bytes=MAX_REQUEST_BYTES
    )
    # This process's runtime settings name the project and stack the monitor's URNs carry (as
    # set_mocks would, without a root stack of its own: no program runs in this process).
    ROOT.set(None)
    configure(
        MockSettings(
            monitor=monitor,
            monitor_features=set(monitor.GetDeploymentInfo(empty_pb2.Empty()).supportedFeatures),
            engine=MockEngine(None),
            project=project,
            stack=stack,
            dry_run=preview,
            organization=None,
            callbacks=None,
        )
    )
    report_read, report_write = os.pipe()
    start_read, start_write = os.pipe()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    config_env = {
        "PULUMI_CONFIG": json.dumps(config),
        "PULUMI_CONFIG_SECRET_KEYS": json.dumps(secret_keys),
    }
    timed_out = False
    try:
        with MonitorServer(monitor) as server, helper_environment(env, config_env) as child_env:
            command = [
                sys.executable,
                # Not the working directory (the program's) first on the path, as -m would put
                # it: a module of the program's named like one the child imports (argparse.py,
                # pulumi/) would run before the program may. The child puts the program's
                # directory on the path once it may run.
                "-P",
                "-m",
                "gpufleet.engine.program_child",
                *("--monitor", server.address),
                *("--project", project, "--stack", stack),
                *("--dry-run", "true" if preview else "false"),
                *("--pwd", str(run_dir), "--report-fd", str(report_write)),
                *("--start-fd", str(start_read)),
                *("--parent-pid", str(os.getpid())),
                str(main),
            ]
            child = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(report_write, start_read),
                env=child_env,
                cwd=run_dir,
                # Its own process group: a timeout stops whatever it started too.
                start_new_session=True,
            )
            os.close(report_write)
            report_write = -1
            os.close(start_read)
            start_read = -1
            assert child.stdout is not None and child.stderr is not None
            stdout, stderr = (
                _Tail(child.stdout, MAX_OUTPUT_BYTES),
                _Tail(child.stderr, MAX_OUTPUT_BYTES),
            )
            report = _Tail(os.fdopen(report_read, "rb"), _MAX_REPORT_BYTES)
            report_read = -1  # the reader's now, closed when read to its end
            try:
                if before_start is not None:
                    before_start()
                # The program's go: one byte (a child that reads none ends without running it).
                with contextlib.suppress(BrokenPipeError):  # it ended already: its ending says
                    os.write(start_write, b"\n")
                os.close(start_write)
                start_write = -1
                child.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                # Past the timeout, anything it left running, or gpufleet itself stopped.
                _kill_group(child)
    finally:
        monitor.close()
        pulumi.runtime.set_all_config({}, [])
        for fd in (report_read, report_write, start_read, start_write):
            if fd >= 0:
                os.close(fd)
    # Exports with their secrets still marked (shown as [secret], exported as secrets),
    # unknowns the sentinel.
    capture = monitor.capture(
        project=project,
        stack=stack,
        preview=preview,
        config=config,
        exports={key: keeping_secrets(value) for key, value in monitor.exports.items()},
    )
    ending = _ending(child.returncode, report.text(), timed_out, timeout)
    if monitor.overflow is not None:
        ending = ProgramEnding(False, f"{monitor.overflow}; stopped taking them")
    return ProgramRun(capture, ending, stdout.text(), stderr.text())


def _kill_group(child: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signal.SIGKILL)
    child.wait()


def _ending(returncode: int, report: str, timed_out: bool, timeout: float) -> ProgramEnding:
    if timed_out:
        return ProgramEnding(False, f"did not finish within {timeout:g} s (--timeout); stopped")
    said = {key: _one_line(value) for key, value in _last_report(report).items()}
    ending = said.get("ending")
    where = f" at {said['where']}" if said.get("where") else ""
    if ending == "completed" and returncode == 0:
        return ProgramEnding(True, "finished")
    if ending == "raised":
        raised = Raised(
            str(said.get("error_type") or "Exception"),
            str(said.get("message") or ""),
            _text_or_none(said.get("resource")),
            _text_or_none(said.get("location")),
        )
        where = f" at {raised.location}" if raised.location else ""
        summary = f"raised {raised.error_type}{where}: {raised.message}"
        return ProgramEnding(False, summary, raised)
    if ending == "sys_exit":
        return ProgramEnding(False, f"called sys.exit({said.get('status')}){where} before its end")
    if ending == "os_exit":
        return ProgramEnding(False, f"called os._exit({said.get('status')}){where} before its end")
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return ProgramEnding(False, f"was killed by {name} before its end")
    return ProgramEnding(False, f"ended (exit status {returncode}) before its end")


def _one_line(value: Any) -> Any:
    """A reported text as one line for a terminal: whitespace runs (newlines included) as one
    space, control characters escaped, cut to ``MAX_ENDING_CHARS``."""
    if not isinstance(value, str):
        return value
    text = escape_controls(" ".join(value.split()))
    return text if len(text) <= MAX_ENDING_CHARS else text[: MAX_ENDING_CHARS - 1] + "…"


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _last_report(text: str) -> dict[str, Any]:
    """The last well-formed line the child wrote on its report stream."""
    for line in reversed(text.splitlines()):
        try:
            found = json.loads(line)
        except ValueError:
            continue
        if isinstance(found, dict):
            return found
    return {}

"""Start a Python policy pack the way the Pulumi engine does, and talk to it over gRPC.

The engine runs ``python -m pulumi.policy <engine-address> <pack-dir>`` with the stack's
identity in the environment (``PULUMI_PROJECT``, ``PULUMI_STACK``, ``PULUMI_DRY_RUN``,
``PULUMI_CONFIG``), reads the port the pack prints, and calls the Analyzer service on it.
``PolicyPackProcess`` does exactly that with this interpreter (whose environment has the pack's
dependencies) and stops the process on exit.

The pack runs beside an untrusted program (``gpufleet check``), which can find it and signal it:
the pack dies with gpufleet (``engine.parent_death``: no orphan when gpufleet is SIGKILLed), is
continued before each use (a program may have stopped it), and every call has a deadline (calls
made many at once, a deadline on their progress), so a pack that was killed or stopped ends the
check with one line, never with a pass or a hang.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import grpc
from pulumi.runtime.proto import analyzer_pb2_grpc

from gpufleet.engine import parent_death
from gpufleet.engine.helper_environment import helper_environment

START_TIMEOUT_SECONDS = 60.0
# The longest gpufleet waits for the pack to answer a call (a stopped pack never does): far
# beyond what an honest pack takes (a fraction of a millisecond per resource, a few seconds
# for AnalyzeStack on a 2,400-resource stack), plus time per resource a call carries. Calls
# made many at once (``call_many``) must see one answer every CALL_TIMEOUT_SECONDS.
CALL_TIMEOUT_SECONDS = 120.0
CALL_SECONDS_PER_RESOURCE = 0.01
# As the engine: policy packs may return large responses.
_CHANNEL_OPTIONS = [("grpc.max_receive_message_length", 400 * 1024 * 1024)]


class PolicyPackError(Exception):
    """The pack could not be started or answered with an error (exit 2: not a violation)."""


class PolicyPackProcess:
    def __init__(
        self,
        pack_dir: Path,
        *,
        project: str,
        stack: str,
        dry_run: bool,
        config: dict[str, str],
        python: Sequence[str] = (sys.executable,),
        environment: Mapping[str, str] | None = None,
    ) -> None:
        self.pack_dir = pack_dir
        # The interpreter (and its options) the pack runs with, and the environment it gets:
        # this one's by default; another to run a pack as it runs elsewhere.
        self._python = list(python)
        self._env = {
            **(os.environ if environment is None else environment),
            "PULUMI_PROJECT": project,
            "PULUMI_STACK": stack,
            "PULUMI_DRY_RUN": "true" if dry_run else "false",
        }
        # Handed over in a file: a large stack's config is too long for a variable.
        self._large_env = {"PULUMI_CONFIG": json.dumps(config)}
        self._env_file: contextlib.ExitStack | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._channel: grpc.Channel | None = None
        self.stub: Any = None

    def start(self) -> PolicyPackProcess:
        """Start the pack's process, not waiting for it: it loads its policies while the caller
        does something else (runs the program under check). ``__enter__`` then connects."""
        if self._process is not None:
            return self
        if not (self.pack_dir / "PulumiPolicy.yaml").is_file():
            raise PolicyPackError(f"{self.pack_dir}: no PulumiPolicy.yaml (not a policy pack)")
        env_file = contextlib.ExitStack()
        env = env_file.enter_context(helper_environment(self._env, self._large_env))
        try:
            self._process = self._popen(env)
        except BaseException:
            env_file.close()
            raise
        self._env_file = env_file
        return self

    def _popen(self, env: dict[str, str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            # ``-m pulumi.policy``, through a script that has it die with this process. No
            # engine to call back: policy packs only use the address for logging.
            [
                *self._python,
                parent_death.__file__,
                str(os.getpid()),
                "pulumi.policy",
                "127.0.0.1:0",
                str(self.pack_dir),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=self.pack_dir,
        )

    def __enter__(self) -> PolicyPackProcess:
        if self.stub is not None:  # already waited for (``ready``)
            self._resume()
            return self
        self.start()
        port = self._read_port()
        target = f"127.0.0.1:{port}"
        self._channel = grpc.insecure_channel(target, options=_CHANNEL_OPTIONS)
        try:
            grpc.channel_ready_future(self._channel).result(timeout=START_TIMEOUT_SECONDS)
        except grpc.FutureTimeoutError:
            raise PolicyPackError(f"{self.pack_dir}: policy pack did not accept calls") from None
        self.stub = _UnaryCalls(
            analyzer_pb2_grpc.AnalyzerStub(self._channel), target, self._what_happened
        )
        return self

    @property
    def pid(self) -> int | None:
        """The pack's process id, once started (until closed)."""
        return self._process.pid if self._process is not None else None

    def _resume(self) -> None:
        """Continue the pack, should something (the program under check) have stopped it
        since it was started: a stopped pack answers nothing."""
        if self._process is not None and self._process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self._process.pid, signal.SIGCONT)

    def _what_happened(self, wait: float = 0.0) -> str | None:
        """Why the pack may not have answered: it ended (how) or is stopped; None if neither
        is known. ``wait``: how long to give a process that is ending to be seen ended (its
        connections close before its status is there to read)."""
        process = self._process
        if process is None:
            return None
        try:
            status = process.wait(timeout=wait) if wait else process.poll()
        except subprocess.TimeoutExpired:
            status = None
        if status is not None:
            return f"the policy pack process {_ended(status)}"
        if _stopped(process.pid):
            return "the policy pack process is stopped"
        return None

    def ready(self) -> PolicyPackProcess:
        """Wait until the pack has loaded its policies and data and accepts calls."""
        return self.__enter__()

    def _read_port(self) -> int:
        assert self._process is not None and self._process.stdout is not None
        result: dict[str, bytes] = {}

        def read() -> None:
            assert self._process is not None and self._process.stdout is not None
            result["line"] = self._process.stdout.readline()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(START_TIMEOUT_SECONDS)
        line = result.get("line", b"").strip()
        if not line.isdigit():
            self._process.kill()
            _, err = self._process.communicate()
            detail = err.decode(errors="replace").strip().splitlines()
            last = detail[-1] if detail else "no output"
            raise PolicyPackError(f"{self.pack_dir}: policy pack failed to start: {last}")
        return int(line)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop the pack (once, however often asked)."""
        channel, process = self._channel, self._process
        self._channel = self._process = None
        if channel is not None:
            channel.close()
        if process is not None:
            process.terminate()
            # A stopped pack acts on the SIGTERM only once continued.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(process.pid, signal.SIGCONT)
            try:
                process.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
        if self._env_file is not None:
            self._env_file.close()
            self._env_file = None


# Calls in flight at once in ``call_many``: enough that the pack always has the next request
# waiting when it finishes one, few enough to bound memory.
PIPELINE_DEPTH = 64


# The statuses of a call whose pack may have gone away, and how long to wait to see it gone.
_GONE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.INTERNAL)
_ENDING_WAIT_SECONDS = 5.0


def _ended(status: int) -> str:
    if status < 0:
        try:
            return f"was killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"was killed by signal {-status}"
    return f"exited with status {status}"


def _stopped(pid: int) -> bool:
    """Whether the process is stopped (Linux: its state in /proc; elsewhere not known)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    # "pid (command) state ...": the command may hold spaces and parentheses.
    fields = stat[stat.rfind(")") + 1 :].split()
    return bool(fields) and fields[0] in ("T", "t")


def call_timeout(request: Any) -> float:
    """The deadline of one call: ``CALL_TIMEOUT_SECONDS``, and more for a call carrying many
    resources (``AnalyzeStack``)."""
    resources = getattr(request, "resources", None)
    count = len(resources) if resources is not None else 1
    return CALL_TIMEOUT_SECONDS + CALL_SECONDS_PER_RESOURCE * count


class _UnaryCalls:
    """The stub's methods, each with a deadline, with a pack-side exception turned into
    ``PolicyPackError`` (saying so when the pack process ended or is stopped)."""

    def __init__(
        self,
        stub: Any,
        target: str,
        what_happened: Callable[[float], str | None] = lambda _: None,
    ) -> None:
        self._stub = stub
        self._target = target
        self._what_happened = what_happened

    def _late(self, method: str) -> PolicyPackError:
        happened = self._what_happened(0.0)
        why = f"; {happened}" if happened else ""
        return PolicyPackError(f"policy pack did not answer {method} in time{why}")

    def _error(self, method: str, exc: grpc.RpcError) -> PolicyPackError:
        code = exc.code() if hasattr(exc, "code") else None
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            return self._late(method)
        # A pack that is gone refuses the connection: give its end a moment to be seen.
        happened = self._what_happened(_ENDING_WAIT_SECONDS if code in _GONE else 0.0)
        if happened:
            return PolicyPackError(f"policy pack {method} failed: {happened}")
        return PolicyPackError(f"policy pack {method} failed: {_details(exc)}")

    def call_many(self, method: str, requests: Iterable[Any]) -> list[Any]:
        """``method`` on each request, answers in order; calls overlap (the engine, too,
        analyzes resources concurrently). asyncio's gRPC client: the blocking client's futures
        pass each answer between threads, which cost this process ~40% more per call. On a
        loop of its own: ``asyncio.run`` would leave the thread without a current loop, which
        the Pulumi runtime of a later capture in the same process needs."""
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(self._call_many(method, requests))
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    async def _call_many(self, method: str, requests: Iterable[Any]) -> list[Any]:
        responses: list[Any] = []
        calls = asyncio.ensure_future(self._pipelined(method, requests, responses))
        # The deadline is on progress, not on each call (a timer per call costs the protocol
        # a tenth of its rate): the pack must answer some call every CALL_TIMEOUT_SECONDS.
        while True:
            answered = len(responses)
            done, _ = await asyncio.wait({calls}, timeout=CALL_TIMEOUT_SECONDS)
            if done:
                return calls.result()
            if len(responses) == answered:
                calls.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await calls
                raise self._late(method)

    async def _pipelined(
        self, method: str, requests: Iterable[Any], responses: list[Any]
    ) -> list[Any]:
        async with grpc.aio.insecure_channel(self._target, options=_CHANNEL_OPTIONS) as channel:
            call = getattr(analyzer_pb2_grpc.AnalyzerStub(channel), method)
            in_flight: deque[Any] = deque()
            try:
                for request in requests:
                    in_flight.append(call(request))
                    if len(in_flight) >= PIPELINE_DEPTH:
                        responses.append(await in_flight.popleft())
                while in_flight:
                    responses.append(await in_flight.popleft())
            except grpc.RpcError as exc:
                raise self._error(method, exc) from None
            finally:
                for pending in in_flight:
                    pending.cancel()
        return responses

    def __getattr__(self, method: str) -> Any:
        call = getattr(self._stub, method)

        def invoke(request: Any) -> Any:
            try:
                return call(request, timeout=call_timeout(request))
            except grpc.RpcError as exc:
                raise self._error(method, exc) from None

        return invoke


def _details(exc: grpc.RpcError) -> str:
    details = exc.details() if hasattr(exc, "details") else None
    return details or str(exc)

"""Start a Python policy pack the way the Pulumi engine does, and talk to it over gRPC.

The engine runs ``python -m pulumi.policy <engine-address> <pack-dir>`` with the stack's
identity in the environment (``PULUMI_PROJECT``, ``PULUMI_STACK``, ``PULUMI_DRY_RUN``,
``PULUMI_CONFIG``), reads the port the pack prints, and calls the Analyzer service on it.
``PolicyPackProcess`` does exactly that with this interpreter (whose environment has the pack's
dependencies) and stops the process on exit.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import grpc
from pulumi.runtime.proto import analyzer_pb2_grpc

START_TIMEOUT_SECONDS = 60.0
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
            "PULUMI_CONFIG": json.dumps(config),
        }
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
        self._process = subprocess.Popen(
            # No engine to call back: policy packs only use the address for logging.
            [*self._python, "-m", "pulumi.policy", "127.0.0.1:0", str(self.pack_dir)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self._env,
            cwd=self.pack_dir,
        )
        return self

    def __enter__(self) -> PolicyPackProcess:
        if self.stub is not None:  # already waited for (``ready``)
            return self
        self.start()
        port = self._read_port()
        target = f"127.0.0.1:{port}"
        self._channel = grpc.insecure_channel(target, options=_CHANNEL_OPTIONS)
        try:
            grpc.channel_ready_future(self._channel).result(timeout=START_TIMEOUT_SECONDS)
        except grpc.FutureTimeoutError:
            raise PolicyPackError(f"{self.pack_dir}: policy pack did not accept calls") from None
        self.stub = _UnaryCalls(analyzer_pb2_grpc.AnalyzerStub(self._channel), target)
        return self

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
            try:
                process.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()


# Calls in flight at once in ``call_many``: enough that the pack always has the next request
# waiting when it finishes one, few enough to bound memory.
PIPELINE_DEPTH = 64


class _UnaryCalls:
    """The stub's methods, with a pack-side exception turned into ``PolicyPackError``."""

    def __init__(self, stub: Any, target: str) -> None:
        self._stub = stub
        self._target = target

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
        async with grpc.aio.insecure_channel(self._target, options=_CHANNEL_OPTIONS) as channel:
            call = getattr(analyzer_pb2_grpc.AnalyzerStub(channel), method)
            responses: list[Any] = []
            in_flight: deque[Any] = deque()
            try:
                for request in requests:
                    in_flight.append(call(request))
                    if len(in_flight) >= PIPELINE_DEPTH:
                        responses.append(await in_flight.popleft())
                while in_flight:
                    responses.append(await in_flight.popleft())
            except grpc.RpcError as exc:
                for pending in in_flight:
                    pending.cancel()
                raise PolicyPackError(f"policy pack {method} failed: {_details(exc)}") from None
        return responses

    def __getattr__(self, method: str) -> Any:
        call = getattr(self._stub, method)

        def invoke(request: Any) -> Any:
            try:
                return call(request)
            except grpc.RpcError as exc:
                raise PolicyPackError(f"policy pack {method} failed: {_details(exc)}") from None

        return invoke


def _details(exc: grpc.RpcError) -> str:
    details = exc.details() if hasattr(exc, "details") else None
    return details or str(exc)

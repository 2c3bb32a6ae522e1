"""A single-threaded gRPC server for unary methods, on gRPC's own core bindings.

Why not ``grpc.server``: its Python layer hands every call from a polling thread to a thread pool
and back through condition variables, three or four times per call, all under the GIL. On the
2-core machines CI gives us that cost about 0.35 ms of GIL time a call — more than evaluating
every policy on a resource — and it held ``gpufleet check`` under 2,000 resources/s however fast
the policies got (``benchmarks/check_bench.py`` measures both servers). ``UnaryServer`` drives the
same ``grpc._cython.cygrpc`` core objects ``grpc.server`` is built on, from one loop: take a call,
receive its message, run the handler, send the answer with the status. That halves the
per-call cost. The GIL made the thread pool's workers run one at a time anyway.

It is deliberately small:
- unary-unary methods only (every Analyzer method is);
- calls are answered one at a time, in arrival order;
- statuses and details are the ones ``grpc.server`` gives: OK, or the code and details a handler
  set on its context; UNKNOWN "Exception calling application: ..." (traceback on stderr) when
  it raised; UNIMPLEMENTED "Method not found!"; INTERNAL for a request that does not parse or a
  response that does not serialize;
- a handler's context has ``set_code``, ``set_details``, ``abort``, ``code``, ``details``,
  ``invocation_metadata``, ``is_active`` and ``time_remaining``.

``cygrpc`` is private to grpcio; ``core_bindings_missing()`` names anything this module needs that
the installed grpcio lacks, and callers fall back to ``grpc.server`` then.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import grpc

# grpcio's Cython core: no type information to check against; None where grpcio lacks it.
cygrpc: Any
try:
    from grpc._cython import cygrpc
except ImportError:  # pragma: no cover - grpcio always ships it today
    cygrpc = None

_NEEDED = (
    "CompletionQueue",
    "Server",
    "CompletionType",
    "StatusCode",
    "ReceiveMessageOperation",
    "SendInitialMetadataOperation",
    "SendMessageOperation",
    "SendStatusFromServerOperation",
    "ReceiveCloseOnServerOperation",
)
# Calls the core may hand over before the loop asks again: a client's pipelined calls are taken
# in without waiting for the loop, as grpc.server's polling thread would.
_CALLS_REQUESTED = 32
# Calls beyond those wait in the core until the loop takes them, which it does only between
# handlers; the core cancels a call left waiting 30 s by default. A slow stack policy must not
# make the calls queued behind it fail, so: a day.
_WAITING_CALL_OPTIONS = (("grpc.server_max_unrequested_time_in_server", 24 * 3600),)
# How often the loop looks up from the queue to see whether it was asked to stop.
_POLL_SECONDS = 0.2
_NO_FLAGS = 0


def core_bindings_missing() -> list[str]:
    """What ``UnaryServer`` needs from grpcio's core bindings and this grpcio lacks."""
    if cygrpc is None:
        return ["grpc._cython.cygrpc"]
    return [f"cygrpc.{name}" for name in _NEEDED if not hasattr(cygrpc, name)]


@dataclass(frozen=True)
class UnaryMethod:
    """One method: its request parser, the handler ``(request, context) -> response`` and the
    response serializer."""

    deserialize: Callable[[bytes], Any]
    handle: Callable[[Any, Any], Any]
    serialize: Callable[[Any], bytes]


class _AbortedError(Exception):
    """Raised by ``context.abort``; the status it set is what the client gets."""


class CallContext:
    """What a handler may do with its call (the subset of ``grpc.ServicerContext`` it needs)."""

    def __init__(self, metadata: Sequence[tuple[str, Any]]) -> None:
        self._metadata = tuple(metadata)
        self._code: grpc.StatusCode | None = None
        self._details: str | None = None

    def set_code(self, code: grpc.StatusCode) -> None:
        self._code = code

    def set_details(self, details: str) -> None:
        self._details = details

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def details(self) -> str | None:
        return self._details

    def abort(self, code: grpc.StatusCode, details: str) -> NoReturn:
        # As grpc.server: aborting with OK is a failure all the same.
        self._code = grpc.StatusCode.UNKNOWN if code == grpc.StatusCode.OK else code
        self._details = "" if code == grpc.StatusCode.OK else details
        raise _AbortedError()

    def invocation_metadata(self) -> tuple[tuple[str, Any], ...]:
        return self._metadata

    def is_active(self) -> bool:
        return True

    def time_remaining(self) -> float | None:
        return None


class UnaryServer:
    """Serve ``methods`` (full method path such as ``/pulumirpc.Analyzer/Analyze`` -> method):
    ``add_port``, ``start``, then ``serve`` until ``stop()``."""

    def __init__(
        self, methods: Mapping[str, UnaryMethod], options: Sequence[tuple[str, Any]] = ()
    ) -> None:
        missing = core_bindings_missing()
        if missing:
            raise RuntimeError(f"grpcio lacks {', '.join(missing)}")
        self._methods = {path.encode(): method for path, method in methods.items()}
        self._queue = cygrpc.CompletionQueue()
        self._server = cygrpc.Server((*options, *_WAITING_CALL_OPTIONS), False)
        self._server.register_completion_queue(self._queue)
        self._stopping = threading.Event()
        self._new_call = object()
        self._shut_down = object()

    def add_port(self, address: str) -> int:
        """Listen on ``address`` (``127.0.0.1:0`` for a free port); returns the port."""
        return self._server.add_http2_port(address.encode())

    def stop(self) -> None:
        """Ask ``serve`` to return; calls in progress are cancelled (safe from any thread)."""
        self._stopping.set()

    def start(self) -> None:
        """Accept connections (calls wait for ``serve``)."""
        self._server.start()
        for _ in range(_CALLS_REQUESTED):
            self._server.request_call(self._queue, self._queue, self._new_call)

    def serve(self) -> None:
        """Answer calls until ``stop()``, then shut down; blocks the calling thread."""
        try:
            self._loop()
        finally:
            self._shutdown()

    def _loop(self) -> None:
        timeout = cygrpc.CompletionType.queue_timeout
        while not self._stopping.is_set():
            event = self._queue.poll(time.time() + _POLL_SECONDS)
            if event.completion_type == timeout:
                continue
            tag = event.tag
            if tag is self._new_call:
                if event.success:
                    self._server.request_call(self._queue, self._queue, self._new_call)
                    self._receive(event)
            elif type(tag) is tuple:
                self._answer(event, *tag)
            # Otherwise a sent answer completed: nothing left to do for that call.

    def _receive(self, event: Any) -> None:
        call, path = event.call, event.call_details.method
        method = self._methods.get(path)
        if method is None:
            self._send_status(call, cygrpc.StatusCode.unimplemented, b"Method not found!")
            return
        call.start_server_batch(
            (cygrpc.ReceiveMessageOperation(_NO_FLAGS),),
            (call, path, method, event.invocation_metadata),
        )

    def _answer(
        self, event: Any, call: Any, path: bytes, method: UnaryMethod, metadata: Any
    ) -> None:
        data = event.batch_operations[0].message() if event.success else None
        if data is None:
            details = f'"{path.decode(errors="replace")}" requires exactly one request message.'
            self._send_status(call, cygrpc.StatusCode.unimplemented, details.encode())
            return
        try:
            request = method.deserialize(data)
        except Exception:  # any parser failure: the client's bad request
            traceback.print_exc()
            self._send_status(call, cygrpc.StatusCode.internal, b"Exception deserializing request!")
            return
        context = CallContext(metadata or ())
        try:
            response = method.handle(request, context)
        except Exception as exc:  # reported to the client, as grpc.server does
            if not isinstance(exc, _AbortedError):
                traceback.print_exc()
            code = context.code() or grpc.StatusCode.UNKNOWN
            details = context.details()
            if details is None:
                details = f"Exception calling application: {exc}"
            self._send_status(call, code.value[0], details.encode())
            return
        try:
            payload = method.serialize(response)
        except Exception:
            traceback.print_exc()
            self._send_status(call, cygrpc.StatusCode.internal, b"Failed to serialize response!")
            return
        code = context.code()
        details = (context.details() or "").encode()
        call.start_server_batch(
            (
                cygrpc.SendInitialMetadataOperation((), _NO_FLAGS),
                cygrpc.SendMessageOperation(payload, _NO_FLAGS),
                cygrpc.SendStatusFromServerOperation(
                    (), cygrpc.StatusCode.ok if code is None else code.value[0], details, _NO_FLAGS
                ),
                cygrpc.ReceiveCloseOnServerOperation(_NO_FLAGS),
            ),
            None,
        )

    @staticmethod
    def _send_status(call: Any, code: int, details: bytes) -> None:
        call.start_server_batch(
            (
                cygrpc.SendInitialMetadataOperation((), _NO_FLAGS),
                cygrpc.SendStatusFromServerOperation((), code, details, _NO_FLAGS),
                cygrpc.ReceiveCloseOnServerOperation(_NO_FLAGS),
            ),
            None,
        )

    def _shutdown(self) -> None:
        # As grpc.server.stop(0): stop taking calls, cancel those in progress, and wait for the
        # core to say it is done before releasing it.
        self._server.shutdown(self._queue, self._shut_down)
        self._server.cancel_all_calls()
        timeout = cygrpc.CompletionType.queue_timeout
        while True:
            event = self._queue.poll(time.time() + _POLL_SECONDS)
            if event.completion_type != timeout and event.tag is self._shut_down:
                break
        self._server.destroy()

"""The offline engine's end of Pulumi's resource-monitor and engine protocols: a gRPC server on
127.0.0.1 that a program in another process (``program_process``) registers its resources
with, as it would with ``pulumi preview``'s engine.

Behind it is the same ``CaptureMonitor`` an in-process capture uses (``engine.capture``): it
records each registration, answers with realistic outputs, and runs transforms through the
program's callback server. The engine service keeps the root resource and the program's log
messages. Nothing the program does reaches this process but these calls.
"""

from __future__ import annotations

import contextvars
import threading
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import empty_pb2
from pulumi.runtime.proto import engine_pb2, engine_pb2_grpc, resource_pb2, resource_pb2_grpc

from gpufleet.engine.capture import CaptureMonitor

# The resource-monitor calls a Python program makes, served by the capture monitor.
_MONITOR_CALLS = (
    "Invoke",
    "ReadResource",
    "RegisterResource",
    "RegisterResourceOutputs",
    "RegisterStackTransform",
    "RegisterStackInvokeTransform",
    "RegisterResourceHook",
    "RegisterErrorHook",
    "GetDeploymentInfo",
    "RegisterPackage",
    "SignalAndWaitForShutdown",
)
_SEVERITY = {
    engine_pb2.DEBUG: "debug",
    engine_pb2.INFO: "info",
    engine_pb2.WARNING: "warning",
    engine_pb2.ERROR: "error",
}
# Program log messages kept, at most (a program cannot fill memory by logging).
MAX_LOG_MESSAGES = 1_000
MAX_LOG_MESSAGE_CHARS = 4_000


@dataclass
class EngineLog:
    messages: list[tuple[str, str]] = field(default_factory=list)  # (severity, text)
    dropped: int = 0
    root: str = ""


def _monitor_servicer(monitor: CaptureMonitor) -> resource_pb2_grpc.ResourceMonitorServicer:
    # The runtime settings (project, stack, preview) the monitor's URNs and decoding read are
    # context variables, set in the thread that made this server; each call runs in a copy of
    # that context, whichever of the server's threads serves it.
    settings = contextvars.copy_context()

    class Servicer(resource_pb2_grpc.ResourceMonitorServicer):
        def SupportsFeature(self, request: Any, context: Any) -> Any:  # noqa: N802
            # The mock monitor answers with a bare object, not the message.
            answer: Any = settings.copy().run(monitor.SupportsFeature, request)
            return resource_pb2.SupportsFeatureResponse(hasSupport=bool(answer.hasSupport))

    def serve(name: str) -> Any:
        call = getattr(monitor, name)

        def method(self: Any, request: Any, context: grpc.ServicerContext) -> Any:
            try:
                return settings.copy().run(call, request)
            except Exception as exc:
                # The program sees the engine refuse the call, as a real engine would.
                context.abort(grpc.StatusCode.UNKNOWN, f"{type(exc).__name__}: {exc}")

        return method

    for name in _MONITOR_CALLS:
        setattr(Servicer, name, serve(name))
    return Servicer()


def _engine_servicer(log: EngineLog) -> engine_pb2_grpc.EngineServicer:
    lock = threading.Lock()

    class Servicer(engine_pb2_grpc.EngineServicer):
        def Log(self, request: Any, context: Any) -> Any:  # noqa: N802
            with lock:
                if len(log.messages) < MAX_LOG_MESSAGES:
                    severity = _SEVERITY.get(request.severity, "info")
                    log.messages.append((severity, request.message[:MAX_LOG_MESSAGE_CHARS]))
                else:
                    log.dropped += 1
            return empty_pb2.Empty()

        def GetRootResource(self, request: Any, context: Any) -> Any:  # noqa: N802
            return engine_pb2.GetRootResourceResponse(urn=log.root)

        def SetRootResource(self, request: Any, context: Any) -> Any:  # noqa: N802
            log.root = request.urn
            return engine_pb2.SetRootResourceResponse()

        def RequirePulumiVersion(self, request: Any, context: Any) -> Any:  # noqa: N802
            return engine_pb2.RequirePulumiVersionResponse()

    return Servicer()


class MonitorServer:
    """Serves ``monitor`` (and an engine) on a free 127.0.0.1 port while open."""

    def __init__(self, monitor: CaptureMonitor) -> None:
        self.log = EngineLog()
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        resource_pb2_grpc.add_ResourceMonitorServicer_to_server(
            _monitor_servicer(monitor), self._server
        )
        engine_pb2_grpc.add_EngineServicer_to_server(_engine_servicer(self.log), self._server)
        port = self._server.add_insecure_port("127.0.0.1:0")
        self.address = f"127.0.0.1:{port}"

    def __enter__(self) -> MonitorServer:
        self._server.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.stop(grace=None)

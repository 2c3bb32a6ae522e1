"""The offline engine's end of Pulumi's resource-monitor protocol: a gRPC server on 127.0.0.1
that a program in another process (``program_process``) registers its resources with, as it
would with ``pulumi preview``'s engine.

Behind it is the same ``CaptureMonitor`` an in-process capture uses (``engine.capture``): it
records each registration, answers with realistic outputs, and runs transforms through the
program's callback server. Nothing the program does reaches this process but these calls.
"""

from __future__ import annotations

import contextvars
from concurrent import futures
from typing import Any

import grpc
from pulumi.runtime.proto import resource_pb2, resource_pb2_grpc

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


class MonitorServer:
    """Serves ``monitor`` on a free 127.0.0.1 port while open."""

    def __init__(self, monitor: CaptureMonitor) -> None:
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        resource_pb2_grpc.add_ResourceMonitorServicer_to_server(
            _monitor_servicer(monitor), self._server
        )
        port = self._server.add_insecure_port("127.0.0.1:0")
        self.address = f"127.0.0.1:{port}"

    def __enter__(self) -> MonitorServer:
        self._server.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.stop(grace=None)

"""Serving the pack's servicer to the engine: on a free local port, announced on stdout as
``PolicyPack`` announces it, until the engine goes away.

``UnaryServer`` (one loop on grpcio's core) by default; ``grpc.server``, as ``PolicyPack``
serves, when ``GPUFLEET_PACK_SERVER=grpc`` asks for it or grpcio lacks the core bindings
``UnaryServer`` needs (``chosen_server``).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping
from concurrent import futures
from typing import Any

import grpc
from google.protobuf import message_factory
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc
from pulumi_policy.policy import _GRPC_CHANNEL_OPTIONS

from gpufleet.policies.serving.analyzer_servicer import PackAnalyzer
from gpufleet.policies.serving.unary_server import UnaryMethod, UnaryServer, core_bindings_missing

SERVER_ENV = "GPUFLEET_PACK_SERVER"
SERVERS = ("unary", "grpc")


def analyzer_methods(servicer: Any) -> dict[str, UnaryMethod]:
    """Every Analyzer method by its full path, as the generated ``add_AnalyzerServicer_to_server``
    would register them (from the service's descriptor, so none is left out)."""
    service = analyzer_pb2.DESCRIPTOR.services_by_name["Analyzer"]
    return {
        f"/{service.full_name}/{m.name}": UnaryMethod(
            message_factory.GetMessageClass(m.input_type).FromString,
            getattr(servicer, m.name),
            message_factory.GetMessageClass(m.output_type).SerializeToString,
        )
        for m in service.methods
    }


def chosen_server(environ: Mapping[str, str]) -> str:
    """``unary`` (``UnaryServer``, the default) or ``grpc`` (``grpc.server``, as ``PolicyPack``
    serves), from ``GPUFLEET_PACK_SERVER``; ``grpc`` too when grpcio lacks what ``UnaryServer``
    needs."""
    chosen = environ.get(SERVER_ENV, "").strip() or "unary"
    if chosen not in SERVERS:
        raise ValueError(f"{SERVER_ENV}={chosen!r}: expected one of {', '.join(SERVERS)}")
    if chosen == "unary" and core_bindings_missing():
        return "grpc"
    return chosen


def serve_analyzer(servicer: PackAnalyzer, environ: Mapping[str, str] = os.environ) -> None:
    """Serve on a free local port, print it for the engine (as ``PolicyPack`` does), block."""
    try:
        chosen = chosen_server(environ)
    except ValueError as exc:
        sys.exit(f"gpufleet policy pack: {exc}")
    if chosen == "unary":
        server = UnaryServer(analyzer_methods(servicer), _GRPC_CHANNEL_OPTIONS)
        port = server.add_port("127.0.0.1:0")
        server.start()
        _announce(port)
        with contextlib.suppress(KeyboardInterrupt):
            server.serve()
        return
    threaded = grpc.server(futures.ThreadPoolExecutor(max_workers=4), options=_GRPC_CHANNEL_OPTIONS)
    analyzer_pb2_grpc.add_AnalyzerServicer_to_server(servicer, threaded)
    port = threaded.add_insecure_port(address="127.0.0.1:0")
    threaded.start()
    _announce(port)
    try:
        threaded.wait_for_termination()
    except KeyboardInterrupt:
        threaded.stop(0)


def _announce(port: int) -> None:
    sys.stdout.buffer.write(f"{port}\n".encode())
    sys.stdout.buffer.flush()

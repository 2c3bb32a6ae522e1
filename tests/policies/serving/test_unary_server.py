"""UnaryServer answers exactly as grpc.server does.

The same servicer is served both ways, through real sockets; every case — an answer, a handler
that raises, aborts or sets a status, a response that does not serialize, a request that does
not parse, an unknown method, a method the servicer does not implement, many calls at once —
must give the client the same response or the same status code and details.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc, plugin_pb2

from gpufleet.policies.serving import unary_server
from gpufleet.policies.serving.serve import SERVER_ENV, analyzer_methods, chosen_server
from gpufleet.policies.serving.unary_server import UnaryServer, core_bindings_missing

ANALYZE = "/pulumirpc.Analyzer/Analyze"


class _Servicer(analyzer_pb2_grpc.AnalyzerServicer):
    """Handshake, Cancel and the rest stay the generated base's: UNIMPLEMENTED."""

    def GetPluginInfo(self, request: Any, context: Any) -> Any:  # noqa: N802
        return plugin_pb2.PluginInfo(version="1.2.3")

    def Analyze(self, request: Any, context: Any) -> Any:  # noqa: N802
        if request.name == "raises":
            raise ValueError("the rule broke")
        if request.name == "aborts":
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "no such resource")
        if request.name == "aborts-ok":
            context.abort(grpc.StatusCode.OK, "aborting with OK is still a failure")
        if request.name == "sets-status":
            context.set_code(grpc.StatusCode.FAILED_PRECONDITION)
            context.set_details("answered, but not OK")
            return analyzer_pb2.AnalyzeResponse()
        if request.name == "unserializable":
            return "not a message"
        return analyzer_pb2.AnalyzeResponse(
            diagnostics=[analyzer_pb2.AnalyzeDiagnostic(policyName=request.name, urn=request.urn)]
        )


def _serve_unary() -> Iterator[str]:
    return _serve_with(_Servicer())


def _serve_with(servicer: Any) -> Iterator[str]:
    server = UnaryServer(analyzer_methods(servicer))
    port = server.add_port("127.0.0.1:0")
    server.start()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    yield f"127.0.0.1:{port}"
    server.stop()
    thread.join(timeout=5)
    assert not thread.is_alive(), "UnaryServer.serve did not return after stop()"


def _serve_grpc() -> Iterator[str]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    analyzer_pb2_grpc.add_AnalyzerServicer_to_server(_Servicer(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(0)


@pytest.fixture(scope="module")
def channels() -> Iterator[dict[str, grpc.Channel]]:
    servers = {"unary": _serve_unary(), "grpc": _serve_grpc()}
    opened = {kind: grpc.insecure_channel(next(serving)) for kind, serving in servers.items()}
    yield opened
    for kind, channel in opened.items():
        channel.close()
        next(servers[kind], None)


def _outcome(call: Any, request: Any) -> tuple[str, Any]:
    try:
        return "OK", call(request, timeout=10)
    except grpc.RpcError as exc:
        return exc.code().name, exc.details()


def _both(channels: dict[str, grpc.Channel], call: Any) -> dict[str, tuple[str, Any]]:
    return {kind: call(channel) for kind, channel in channels.items()}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("ok", ("OK", None)),
        ("raises", ("UNKNOWN", "Exception calling application: the rule broke")),
        ("aborts", ("INVALID_ARGUMENT", "no such resource")),
        ("aborts-ok", ("UNKNOWN", "")),
        ("sets-status", ("FAILED_PRECONDITION", "answered, but not OK")),
        ("unserializable", ("INTERNAL", "Failed to serialize response!")),
    ],
)
def test_handler_outcomes_match_grpc_server(
    channels: dict[str, grpc.Channel], name: str, expected: tuple[str, Any]
) -> None:
    request = analyzer_pb2.AnalyzeRequest(name=name, urn=f"urn:{name}")
    outcomes = _both(
        channels, lambda ch: _outcome(analyzer_pb2_grpc.AnalyzerStub(ch).Analyze, request)
    )
    assert outcomes["unary"] == outcomes["grpc"]
    code, detail = outcomes["unary"]
    if expected[0] == "OK":
        assert code == "OK" and detail.diagnostics[0].policyName == name
    else:
        assert (code, detail) == expected


def test_unimplemented_and_unknown_methods_match_grpc_server(
    channels: dict[str, grpc.Channel],
) -> None:
    handshake = _both(
        channels,
        lambda ch: _outcome(
            analyzer_pb2_grpc.AnalyzerStub(ch).Handshake, analyzer_pb2.AnalyzerHandshakeRequest()
        ),
    )
    assert handshake["unary"] == handshake["grpc"] == ("UNIMPLEMENTED", "Method not implemented!")
    unknown = _both(
        channels,
        lambda ch: _outcome(ch.unary_unary("/pulumirpc.Analyzer/Nope"), b""),
    )
    assert unknown["unary"] == unknown["grpc"] == ("UNIMPLEMENTED", "Method not found!")


def test_unparsable_request_matches_grpc_server(channels: dict[str, grpc.Channel]) -> None:
    # Field 1 (type) as a string whose length runs past the end of the message.
    outcomes = _both(channels, lambda ch: _outcome(ch.unary_unary(ANALYZE), b"\x0a\x7fab"))
    assert outcomes["unary"] == outcomes["grpc"] == ("INTERNAL", "Exception deserializing request!")


def test_plugin_info(channels: dict[str, grpc.Channel]) -> None:
    from google.protobuf import empty_pb2

    outcomes = _both(
        channels,
        lambda ch: _outcome(analyzer_pb2_grpc.AnalyzerStub(ch).GetPluginInfo, empty_pb2.Empty()),
    )
    assert outcomes["unary"] == outcomes["grpc"] == ("OK", plugin_pb2.PluginInfo(version="1.2.3"))


def test_many_calls_at_once_each_get_their_own_answer(channels: dict[str, grpc.Channel]) -> None:
    stub = analyzer_pb2_grpc.AnalyzerStub(channels["unary"])
    names = [f"r{i}" for i in range(300)]
    calls = [stub.Analyze.future(analyzer_pb2.AnalyzeRequest(name=n, urn=n)) for n in names]
    answers = [call.result(timeout=30).diagnostics[0].policyName for call in calls]
    assert answers == names


def test_the_default_server_is_unary_and_grpc_can_be_chosen() -> None:
    assert chosen_server({}) == "unary"
    assert chosen_server({SERVER_ENV: " unary "}) == "unary"
    assert chosen_server({SERVER_ENV: "grpc"}) == "grpc"
    with pytest.raises(ValueError, match=f"{SERVER_ENV}='fast': expected one of unary, grpc"):
        chosen_server({SERVER_ENV: "fast"})


def test_grpc_server_when_the_core_bindings_are_not_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(unary_server, "cygrpc", None)
    assert core_bindings_missing() == ["grpc._cython.cygrpc"]
    assert chosen_server({}) == "grpc"
    with pytest.raises(RuntimeError, match=r"grpcio lacks grpc\._cython\.cygrpc"):
        UnaryServer({})


def test_core_bindings_in_this_grpcio() -> None:
    # If a grpcio upgrade drops any, the pack quietly serves with grpc.server: say so here.
    assert core_bindings_missing() == []

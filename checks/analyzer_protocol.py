"""The Analyzer gRPC protocol, client side, as the Pulumi engine speaks it to a policy pack.

``run_analysis(analyzer, resources, ...)`` makes the engine's calls in the engine's order —
``GetAnalyzerInfo``, ``Configure`` (every policy's enforcement level and properties),
``ConfigureStack``, ``Analyze`` for each resource, then ``AnalyzeStack`` with all of them — and
returns the diagnostics and not-applicable notes, each tied to its resource. ``analyzer`` is
anything with those methods taking request messages: a gRPC stub to a pack process
(``policy_pack_process``) or the pack's servicer in-process (``policies.testing``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import analyzer_pb2

from gpufleet.engine.analyzer_resources import AnalyzerResource, ProviderRef

LEVEL_NAMES = {
    analyzer_pb2.ADVISORY: "advisory",
    analyzer_pb2.MANDATORY: "mandatory",
    analyzer_pb2.REMEDIATE: "remediate",
    analyzer_pb2.DISABLED: "disabled",
}
LEVELS = {name: value for value, name in LEVEL_NAMES.items()}


class Analyzer(Protocol):
    def GetAnalyzerInfo(self, request: Any) -> Any: ...  # noqa: N802 - gRPC method names
    def Configure(self, request: Any) -> Any: ...  # noqa: N802
    def ConfigureStack(self, request: Any) -> Any: ...  # noqa: N802
    def Analyze(self, request: Any) -> Any: ...  # noqa: N802
    def AnalyzeStack(self, request: Any) -> Any: ...  # noqa: N802


SEVERITY_NAMES = {
    analyzer_pb2.POLICY_SEVERITY_LOW: "low",
    analyzer_pb2.POLICY_SEVERITY_MEDIUM: "medium",
    analyzer_pb2.POLICY_SEVERITY_HIGH: "high",
    analyzer_pb2.POLICY_SEVERITY_CRITICAL: "critical",
}


@dataclass(frozen=True)
class PolicyInfo:
    name: str
    description: str
    level: str  # the pack's default
    config_schema: dict[str, Any]  # {"properties": ..., "required": [...]}
    is_stack_policy: bool
    remediation_steps: str
    # What the pack says of the policy beyond what the engine needs, for reports: a short
    # title, "low" to "critical" ("" unset), tags such as "security" or "cost", a help page.
    display_name: str = ""
    severity: str = ""
    tags: tuple[str, ...] = ()
    url: str = ""


@dataclass(frozen=True)
class PackInfo:
    name: str
    version: str
    policies: tuple[PolicyInfo, ...]
    initial_config: dict[str, dict[str, Any]]

    def policy(self, name: str) -> PolicyInfo | None:
        return next((p for p in self.policies if p.name == name), None)


@dataclass(frozen=True)
class RawDiagnostic:
    policy: str
    level: str
    message: str
    urn: str  # the resource it is about ("" for a stack-wide result)


@dataclass(frozen=True)
class NotApplicable:
    policy: str
    reason: str
    urn: str


def without_description(message: str, description: str) -> str:
    """A violation's own message: the SDK prefixes each with the policy's description and a
    newline."""
    if description and message.startswith(description):
        return message[len(description) :].lstrip("\n") or description
    return message


def pack_info(analyzer: Analyzer) -> PackInfo:
    info = analyzer.GetAnalyzerInfo(empty_pb2.Empty())
    policies = tuple(
        PolicyInfo(
            name=p.name,
            description=p.description,
            level=LEVEL_NAMES.get(p.enforcementLevel, "advisory"),
            config_schema=json_format.MessageToDict(p.configSchema),
            is_stack_policy=p.policy_type == analyzer_pb2.POLICY_TYPE_STACK,
            remediation_steps=p.remediation_steps,
            display_name=p.displayName,
            severity=SEVERITY_NAMES.get(p.severity, ""),
            tags=tuple(p.tags),
            url=p.url,
        )
        for p in info.policies
    )
    initial = {
        name: {
            **json_format.MessageToDict(config.properties),
            **(
                {"enforcementLevel": LEVEL_NAMES[config.enforcementLevel]}
                if config.enforcementLevel
                else {}
            ),
        }
        for name, config in info.initialConfig.items()
    }
    return PackInfo(info.name, info.version, policies, initial)


def configure(analyzer: Analyzer, policy_config: dict[str, tuple[str, dict[str, Any]]]) -> None:
    """``policy_config``: policy name -> (enforcement level, properties), for every policy."""
    request = analyzer_pb2.ConfigureAnalyzerRequest()
    for name, (level, properties) in policy_config.items():
        config = request.policyConfig[name]
        config.enforcementLevel = LEVELS[level]
        config.properties.update(properties)
    analyzer.Configure(request)


def configure_stack(
    analyzer: Analyzer,
    *,
    project: str,
    stack: str,
    dry_run: bool,
    config: dict[str, str],
    tags: dict[str, str] | None = None,
) -> None:
    request = analyzer_pb2.AnalyzerStackConfigureRequest(
        stack=stack,
        project=project,
        organization="organization",
        dry_run=dry_run,
        config=config,
        tags=tags or {},
    )
    analyzer.ConfigureStack(request)


def _struct(values: dict[str, Any]) -> struct_pb2.Struct:
    # engine_value gives JSON-shaped values, exactly what Struct.update accepts.
    struct = struct_pb2.Struct()
    struct.update(values)
    return struct


def _options(r: AnalyzerResource) -> analyzer_pb2.AnalyzerResourceOptions:
    return analyzer_pb2.AnalyzerResourceOptions(
        protect=r.protect,
        ignoreChanges=r.ignore_changes,
        deleteBeforeReplace=r.delete_before_replace,
        deleteBeforeReplaceDefined=r.delete_before_replace,
        additionalSecretOutputs=r.additional_secret_outputs,
        parent=r.parent,
    )


def _provider(p: ProviderRef | None) -> analyzer_pb2.AnalyzerProviderResource | None:
    if p is None:
        return None
    return analyzer_pb2.AnalyzerProviderResource(
        type=p.type, urn=p.urn, name=p.name, properties=_struct(p.properties)
    )


def analyze_request(r: AnalyzerResource) -> analyzer_pb2.AnalyzeRequest:
    return analyzer_pb2.AnalyzeRequest(
        type=r.type,
        urn=r.urn,
        name=r.name,
        properties=_struct(r.inputs),
        options=_options(r),
        provider=_provider(r.provider),
    )


def stack_request(resources: Iterable[AnalyzerResource]) -> analyzer_pb2.AnalyzeStackRequest:
    request = analyzer_pb2.AnalyzeStackRequest()
    for r in resources:
        _add_to_stack(request, r)
    return request


def _add_to_stack(
    stack: analyzer_pb2.AnalyzeStackRequest,
    r: AnalyzerResource,
    analyzed: analyzer_pb2.AnalyzeRequest | None = None,
) -> None:
    """``r`` added to the stack's request; its ``Analyze`` request, if built, lends the messages
    both hold (a copy of a message is far cheaper than building it from Python values)."""
    item = stack.resources.add(
        type=r.type,
        urn=r.urn,
        name=r.name,
        options=_options(r),
        parent=r.parent,
        dependencies=r.dependencies,
    )
    if analyzed is not None and r.state is r.inputs:
        item.properties.CopyFrom(analyzed.properties)
    else:
        item.properties.CopyFrom(_struct(r.state))
    if analyzed is not None and analyzed.HasField("provider"):
        item.provider.CopyFrom(analyzed.provider)
    elif analyzed is None and (provider := _provider(r.provider)) is not None:
        item.provider.CopyFrom(provider)
    for key, urns in r.property_dependencies.items():
        item.propertyDependencies[key].urns.extend(urns)


def analyze(
    analyzer: Analyzer, resources: list[AnalyzerResource]
) -> tuple[list[RawDiagnostic], list[NotApplicable]]:
    """Analyze each resource, then the stack. An analyzer with ``call_many`` (a pack process)
    gets the resource calls pipelined; the stack's request is built as they go (while the pack
    evaluates them)."""
    diagnostics: list[RawDiagnostic] = []
    not_applicable: list[NotApplicable] = []
    stack = analyzer_pb2.AnalyzeStackRequest()

    def requests() -> Iterator[analyzer_pb2.AnalyzeRequest]:
        for r in resources:
            request = analyze_request(r)
            _add_to_stack(stack, r, request)
            yield request

    call_many = getattr(analyzer, "call_many", None)
    if call_many is not None:
        responses = call_many("Analyze", requests())
    else:
        responses = [analyzer.Analyze(request) for request in requests()]
    for r, response in zip(resources, responses, strict=True):
        _collect(response, r.urn, diagnostics, not_applicable)
    response = analyzer.AnalyzeStack(stack)
    _collect(response, "", diagnostics, not_applicable)
    return diagnostics, not_applicable


def _collect(
    response: Any,
    urn: str,
    diagnostics: list[RawDiagnostic],
    not_applicable: list[NotApplicable],
) -> None:
    for d in response.diagnostics:
        diagnostics.append(
            RawDiagnostic(
                policy=d.policyName,
                level=LEVEL_NAMES.get(d.enforcementLevel, "advisory"),
                message=d.message,
                urn=d.urn or urn,
            )
        )
    for n in response.not_applicable:
        not_applicable.append(NotApplicable(n.policy_name, n.reason, urn))

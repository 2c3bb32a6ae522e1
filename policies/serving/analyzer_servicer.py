"""The Analyzer servicer the pack serves: the SDK's, reading each request once.

The SDK's ``_PolicyAnalyzerServicer`` deserializes a request's properties again for every
policy — for ``AnalyzeStack`` every resource of the stack once per stack policy — wraps each
copy in an unknown-checking proxy, and re-configures the Pulumi runtime on every call. With a
dozen policies that was most of the pack's time. ``PackAnalyzer`` overrides only ``Analyze``,
``AnalyzeStack`` and the provider reading, keeping the same policy loop, levels, violation
reports, "can't be known during preview" advisories and not-applicable results, but:

- hands each policy a ``policy_builders.Reporter``: the SDK's violation report at the
  policy's level, plus one at the advisory level and a not-applicable note, for the findings a
  rule decides are advisory and the suppressions of stack policies (the SDK's servicer reports
  every violation at the policy's level and drops those notes);
- reads each request's properties once, straight from the Struct (``struct_to_python``),
  and gives every policy the same ``DeserializedProps``: the SDK proxy for a policy that
  reads it as a mapping, the plain values for ``properties.plain`` without a copy;
- skips a ``TypedResourcePolicy`` for resource types it does not look at;
- configures the runtime once per server thread.

Policies therefore share the props objects and must not modify them (ours never do).
``serve.serve_analyzer`` serves it. ``tests/policies/serving/test_analyzer_servicer.py`` checks
that this servicer and the SDK's answer every request identically (but for those advisories
and notes). It relies on SDK internals
(name-mangled fields, private helpers), hence the minor-version ``pulumi-policy`` pin in
``pyproject.toml``.
"""

from __future__ import annotations

import asyncio
import math
import threading
from inspect import isawaitable
from typing import Any

from google.protobuf import struct_pb2
from pulumi.runtime import proto
from pulumi_policy import (
    EnforcementLevel,
    Policy,
    PolicyProviderResource,
    PolicyResource,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.deserialize import SPECIAL_SIG_KEY, _deserialize_property
from pulumi_policy.policy import _NotApplicableError, _PolicyAnalyzerServicer
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies import stack_limits
from gpufleet.policies.policy_builders import Reporter, TypedResourcePolicy
from gpufleet.policies.properties import DeserializedProps


def struct_to_python(struct: struct_pb2.Struct) -> dict[str, Any]:
    """What the SDK's ``deserialize_properties(json_format.MessageToDict(struct))`` gives,
    in one pass over the message (several times faster; every request goes through it)."""
    fields = struct.fields
    # Keys then lookups: the map's items() is a pure-Python view, a third slower.
    return {key: _value(fields[key]) for key in fields}


def _value(value: struct_pb2.Value) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "struct_value":
        fields = struct_to_python(value.struct_value)
        # Assets, archives and secrets: the SDK's own decoding.
        return _deserialize_property(fields) if SPECIAL_SIG_KEY in fields else fields
    if kind == "list_value":
        return [_value(item) for item in value.list_value.values]
    if kind == "number_value":
        number = value.number_value
        if not math.isfinite(number):
            # As MessageToDict: JSON has no such number.
            raise ValueError(f"Fail to serialize {number} for Value.number_value")
        return number
    if kind == "bool_value":
        return value.bool_value
    return None


class PackAnalyzer(_PolicyAnalyzerServicer):
    def __init__(
        self,
        name: str,
        version: str,
        policies: list[Policy],
        enforcement_level: EnforcementLevel,
        **options: Any,
    ) -> None:
        super().__init__(name, version, policies, enforcement_level, **options)
        self._pack_name = name
        self._pack_version = version
        self._policies = policies
        self._configured_threads = threading.local()
        # Enabled policies with their levels, by resource type (the resource policies that look
        # at it) and under None (the stack policies); fixed until the next Configure.
        self._selected: dict[str | None, list[tuple[Policy, EnforcementLevel]]] = {}
        self._stack_limits: stack_limits.StackLimits | None = None

    def Configure(self, request: Any, context: Any) -> Any:  # noqa: N802 - gRPC method name
        response = super().Configure(request, context)
        self._selected = {}
        return response

    def ConfigureStack(self, request: Any, context: Any) -> Any:  # noqa: N802
        # The stack's config, for rules whose limits default to the spec's (stack_limits).
        self._stack_limits = stack_limits.limits_in(dict(request.config))
        return super().ConfigureStack(request, context)

    def _select(self, resource_type: str | None) -> list[tuple[Policy, EnforcementLevel]]:
        """The enabled resource policies for ``resource_type``; the stack policies for None."""
        selected = self._selected.get(resource_type)
        if selected is None:
            selected = [
                (policy, level)
                for policy in self._policies
                if _looks_at(policy, resource_type)
                and (level := self._get_enforcement_level(policy)) != EnforcementLevel.DISABLED
            ]
            self._selected[resource_type] = selected
        return selected

    def _configure_once(self) -> None:
        # The SDK stores runtime settings in context variables, which a gRPC worker thread
        # keeps between calls: once per thread is enough.
        if not getattr(self._configured_threads, "done", False):
            self._configure_runtime_settings()
            self._configured_threads.done = True

    def _stack_tags(self) -> Any:
        return self._PolicyAnalyzerServicer__stack_tags  # type: ignore[attr-defined]

    def Analyze(self, request: Any, _context: Any) -> Any:  # noqa: N802 - gRPC method name
        with stack_limits.current_limits(self._stack_limits):
            return self._analyze(request)

    def AnalyzeStack(self, request: Any, _context: Any) -> Any:  # noqa: N802
        with stack_limits.current_limits(self._stack_limits):
            return self._analyze_stack(request)

    def _analyze(self, request: Any) -> Any:
        self._configure_once()
        response = proto.AnalyzeResponse()
        shared: tuple[Any, Any, Any] | None = None
        for policy, level in self._select(request.type):
            # _select gave resource policies only; the isinstance says so to type checkers.
            if not isinstance(policy, ResourceValidationPolicy) or not policy.has_validation():
                response.not_applicable.append(
                    proto.PolicyNotApplicable(
                        policy_name=policy.name, reason="Policy does not implement validate"
                    )
                )
                continue
            if shared is None:
                shared = (
                    DeserializedProps(struct_to_python(request.properties)),
                    self._get_resource_options(request),
                    self._get_provider_resource(request),
                )
            props, opts, provider = shared
            args = ResourceValidationArgs(
                request.type,
                props,
                request.urn,
                request.name,
                opts,
                provider,
                self._get_policy_config(policy.name),
                self._stack_tags(),
            )
            # A remediation that still violates is reported as mandatory, as the SDK does.
            if level == EnforcementLevel.REMEDIATE:
                level = EnforcementLevel.MANDATORY
            self._run(policy, args, level, response)
        return response

    def _analyze_stack(self, request: Any) -> Any:
        self._configure_once()
        response = proto.AnalyzeResponse()
        resources: list[PolicyResource] | None = None
        for policy, level in self._select(None):
            if resources is None:
                resources = self._stack_resources(request)
            if level == EnforcementLevel.REMEDIATE:
                level = EnforcementLevel.MANDATORY
            args = StackValidationArgs(
                resources, self._get_policy_config(policy.name), self._stack_tags()
            )
            self._run(policy, args, level, response)
        return response

    def _stack_resources(self, request: Any) -> list[PolicyResource]:
        resources = [
            PolicyResource(
                r.type,
                DeserializedProps(struct_to_python(r.properties)),
                r.urn,
                r.name,
                self._get_resource_options(r),
                self._get_provider_resource(r),
                None,
                [],
                {},
            )
            for r in request.resources
        ]
        by_urn = {r.urn: r for r in resources}
        for resource, r in zip(resources, request.resources, strict=True):
            if r.parent in by_urn:
                resource.parent = by_urn[r.parent]
            resource.dependencies.extend(by_urn[d] for d in r.dependencies if d in by_urn)
            for key, deps in r.propertyDependencies.items():
                resource.property_dependencies[key] = [by_urn[d] for d in deps.urns if d in by_urn]
        return resources

    def _get_provider_resource(self, request: Any) -> PolicyProviderResource | None:
        if not request.HasField("provider"):
            return None
        provider = request.provider
        props = DeserializedProps(struct_to_python(provider.properties))
        return PolicyProviderResource(provider.type, props, provider.urn, provider.name)

    def _run(self, policy: Policy, args: Any, level: EnforcementLevel, response: Any) -> None:
        def note(reason: str) -> None:
            response.not_applicable.append(
                proto.PolicyNotApplicable(policy_name=policy.name, reason=reason)
            )

        report_violation = Reporter(
            self._create_report_violation(
                response, policy.name, policy.description, level, policy.severity
            ),
            self._create_report_violation(
                response,
                policy.name,
                policy.description,
                EnforcementLevel.ADVISORY,
                policy.severity,
            ),
            note,
        )
        try:
            result = policy.validate(args, report_violation)  # type: ignore[attr-defined]
            # Most validations return None; isawaitable's ABC check costs more than the rule.
            if result is not None and isawaitable(result):
                loop = asyncio.new_event_loop()
                try:
                    loop.run_until_complete(result)
                finally:
                    loop.close()
        except UnknownValueError as e:
            response.diagnostics.append(
                proto.AnalyzeDiagnostic(
                    policyName=policy.name,
                    policyPackName=self._pack_name,
                    policyPackVersion=self._pack_version,
                    message=(
                        f"can't run policy '{policy.name}' from policy pack "
                        f"'{self._pack_name}@v{self._pack_version}' during preview: {e.message}"
                    ),
                    urn="",
                    description=policy.description,
                    enforcementLevel=self._map_enforcement_level(EnforcementLevel.ADVISORY),
                )
            )
        except _NotApplicableError as e:
            response.not_applicable.append(
                proto.PolicyNotApplicable(policy_name=policy.name, reason=e.reason or "")
            )


def _looks_at(policy: Policy, resource_type: str | None) -> bool:
    if resource_type is None:
        return isinstance(policy, StackValidationPolicy)
    if isinstance(policy, TypedResourcePolicy):
        return policy.applies_to(resource_type)
    return isinstance(policy, ResourceValidationPolicy)

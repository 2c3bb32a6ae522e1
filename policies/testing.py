"""Unit-test policies against resource dicts, through the SDK's own Analyzer servicer.

The Python CrossGuard SDK has no test helper (pulumi-policy#445); testing a rule function
directly skips what the servicer does — unknown-value handling, enforcement levels, config,
not-applicable — and so tests something other than what runs. ``PolicyHarness`` serves the
policies in-process with the servicer the pack serves (``PackAnalyzer``, the SDK's own with
requests read once) and sends it the same Analyzer requests ``gpufleet check`` sends a pack
process, config validated against each policy's schema::

    from gpufleet.policies.testing import PolicyHarness, UNKNOWN

    def test_my_policy():
        harness = PolicyHarness([my_policy], {"my-policy": {"limit": 4}})
        found = harness.analyze("aws:ec2/instance:Instance", {"instanceType": "p5.48xlarge"})
        assert [v.policy for v in found] == ["my-policy"]

``UNKNOWN`` stands for a value a preview cannot know. Stack policies: ``analyze_stack`` takes
``StackInput`` resources (with property dependencies, to link a group to its template).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pulumi_policy import EnforcementLevel, Policy

from gpufleet.checks.analyzer_protocol import (
    LEVEL_NAMES,
    analyze,
    analyze_request,
    configure,
    configure_stack,
    pack_info,
    stack_request,
    without_description,
)
from gpufleet.checks.policy_config import reconcile
from gpufleet.engine.analyzer_resources import AnalyzerResource, ProviderRef
from gpufleet.engine.wire import UNKNOWN
from gpufleet.policies.serving.analyzer_servicer import PackAnalyzer

__all__ = ["UNKNOWN", "InProcessAnalyzer", "PolicyHarness", "StackInput", "Violation"]


@dataclass(frozen=True)
class Violation:
    policy: str
    level: str  # "mandatory", "advisory"
    message: str
    urn: str


@dataclass
class StackInput:
    type: str
    props: dict[str, Any]
    name: str = "r"
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    parent: str = ""
    provider: dict[str, Any] | None = None
    component: bool = False  # a component of the program: no provider, outputs as props

    def urn(self, stack: str) -> str:
        return f"urn:pulumi:{stack}::test::{self.type}::{self.name}"


class InProcessAnalyzer:
    """A servicer called the way a gRPC stub is (request in, response out), for
    ``checks.analyzer_protocol`` without a pack process."""

    def __init__(self, servicer: Any) -> None:
        self._servicer = servicer

    def GetAnalyzerInfo(self, request: Any) -> Any:  # noqa: N802 - gRPC method names
        return self._servicer.GetAnalyzerInfo(request, None)

    def Configure(self, request: Any) -> Any:  # noqa: N802
        return self._servicer.Configure(request, None)

    def ConfigureStack(self, request: Any) -> Any:  # noqa: N802
        return self._servicer.ConfigureStack(request, None)

    def Analyze(self, request: Any) -> Any:  # noqa: N802
        return self._servicer.Analyze(request, None)

    def AnalyzeStack(self, request: Any) -> Any:  # noqa: N802
        return self._servicer.AnalyzeStack(request, None)


class PolicyHarness:
    def __init__(
        self,
        policies: list[Policy] | None = None,
        config: dict[str, Any] | None = None,
        *,
        stack: str = "dev",
        dry_run: bool = False,
        stack_config: dict[str, str] | None = None,
    ) -> None:
        """``config`` is a policy pack config (as in ``policies/config/<env>.json``);
        PolicyConfigError when it violates a policy's schema. ``stack_config`` is the stack's
        config as the engine hands it over (``namespace:key`` -> string, objects as JSON)."""
        if policies is None:
            from gpufleet.policies.rules import all_policies

            policies = all_policies()
        self.stack = stack
        self._analyzer = InProcessAnalyzer(
            PackAnalyzer("test-pack", "0.0.1", policies, EnforcementLevel.MANDATORY)
        )
        info = pack_info(self._analyzer)
        self._descriptions = {p.name: p.description for p in info.policies}
        configure(self._analyzer, reconcile(info, config or {}))
        configure_stack(
            self._analyzer,
            project="test",
            stack=stack,
            dry_run=dry_run,
            config=stack_config or {},
        )

    def analyze(
        self,
        type_: str,
        props: dict[str, Any],
        *,
        name: str = "r",
        provider: dict[str, Any] | None = None,
    ) -> list[Violation]:
        """Violations (and "can't be known during preview" advisories) for one resource."""
        resource = self._resource(StackInput(type_, props, name, provider=provider))
        return self._violations(self._analyzer.Analyze(analyze_request(resource)), resource.urn)

    def not_applicable(self, type_: str, props: dict[str, Any], *, name: str = "r") -> list[str]:
        """The not-applicable reasons (e.g. suppressions) the policies gave for a resource."""
        resource = self._resource(StackInput(type_, props, name))
        response = self._analyzer.Analyze(analyze_request(resource))
        return [f"{n.policy_name}: {n.reason}" for n in response.not_applicable]

    def stack_not_applicable(self, resources: list[StackInput]) -> list[str]:
        """The not-applicable notes (a stack policy's suppressions) for a stack."""
        request = stack_request([self._resource(r) for r in resources])
        response = self._analyzer.AnalyzeStack(request)
        return [f"{n.policy_name}: {n.reason}" for n in response.not_applicable]

    def analyze_stack(self, resources: list[StackInput]) -> list[Violation]:
        request = stack_request([self._resource(r) for r in resources])
        return self._violations(self._analyzer.AnalyzeStack(request), "")

    def check(self, resources: list[AnalyzerResource]) -> list[Violation]:
        """Every finding on a whole stack, a capture's or an export's resources
        (``engine.analyzer_resources``), through the calls ``gpufleet check`` makes."""
        diagnostics, _ = analyze(self._analyzer, resources)
        return [
            Violation(
                d.policy,
                d.level,
                without_description(d.message, self._descriptions.get(d.policy, "")),
                d.urn,
            )
            for d in diagnostics
        ]

    def _resource(self, r: StackInput) -> AnalyzerResource:
        # A resource of a cloud always has a provider (its package's default when the test
        # gives no settings); the engine's own types and components have none.
        provider = None
        if not r.type.startswith("pulumi:") and not r.component:
            package = r.type.split(":", 1)[0]
            provider = ProviderRef(
                f"pulumi:providers:{package}",
                f"urn:pulumi:{self.stack}::test::pulumi:providers:{package}::default",
                "default",
                r.provider or {},
            )
        return AnalyzerResource(
            urn=r.urn(self.stack),
            type=r.type,
            name=r.name,
            custom=not r.component,
            inputs=r.props,
            state=r.props,
            parent=r.parent,
            provider=provider,
            property_dependencies=r.property_dependencies,
        )

    def _violations(self, response: Any, urn: str) -> list[Violation]:
        out = []
        for d in response.diagnostics:
            message = without_description(d.message, self._descriptions.get(d.policyName, ""))
            out.append(
                Violation(d.policyName, LEVEL_NAMES[d.enforcementLevel], message, d.urn or urn)
            )
        return out

"""Build CrossGuard policies from plain rule functions.

A rule is a function of plain data — ``ResourceView`` (one resource) or a list of
``StackResource`` (the stack) plus its ``Settings`` — returning ``Findings``. The builders here
turn it into the SDK's ``ResourceValidationPolicy`` / ``StackValidationPolicy`` and add what
every rule needs the same way:

- properties are read with unknowns kept (``properties.plain``), so an unrelated unknown value
  never downgrades a rule; a rule that cannot decide because *its* value is unknown says so
  (``Findings.unknown``) and the servicer reports that as advisory, after any violation;
- ``Settings`` reads the policy's config with the defaults of its own schema, so the pack
  behaves the same with or without a policy config file;
- suppressions: every policy accepts ``suppressions: [{resource, reason}]`` in its config
  (``resource`` matches a URN or a resource name, shell-style wildcards); a suppressed
  violation is not reported, and the pack says so in a not-applicable note with the reason
  (``gpufleet.policy_notes``), so ``gpufleet check`` can list what was suppressed and why;
- downgrades: every policy accepts ``advisory: [{type | resource, reason}]``: its violations on
  resources of that type (exactly) or that URN / name (wildcards) are reported as advisory,
  the reason in the message — for a mandatory rule a user has reviewed a class of resources
  of (a fail-closed finding on a type gpufleet cannot size, say) without silencing it;
- levels per finding: a rule may report a violation as at most advisory (``Findings.violate(
  ..., advisory=True)``: a value only a preview does not know), whatever the policy's level;
- what reports say of a policy, served with it (``GetAnalyzerInfo``) so the Pulumi CLI and
  ``gpufleet check`` read the same: a short title (``display_name``), what it is about
  (``tags``: ``security`` or ``cost``; a security policy also has a ``severity``, which SARIF
  turns into code scanning's security severity) and its help page, the policy's row in
  docs/policies.md's table (``help_url``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    PolicyResource,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)

from gpufleet import PROJECT_URL
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.policies.properties import plain, unknown_error
from gpufleet.policies.same_input_memo import SameInputMemo
from gpufleet.policy_notes import downgraded, suppressed_note
from gpufleet.policy_tags import COST, SECURITY

SUPPRESSIONS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "description": "Violations not to report, each with the reason (reviewed like code).",
    "items": {
        "type": "object",
        "properties": {
            "resource": {
                "type": "string",
                "minLength": 1,
                "description": "URN or resource name; * and ? wildcards",
            },
            "reason": {"type": "string", "minLength": 10},
        },
        "required": ["resource", "reason"],
        "additionalProperties": False,
    },
    "default": [],
}

ADVISORY_SCHEMA: dict[str, Any] = {
    "type": "array",
    "description": "Resources whose violations are reported as advisory, not at the policy's "
    "level, each with the reason (reviewed like code): by resource type (exactly) or by URN "
    "or resource name (* and ? wildcards).",
    "items": {
        "type": "object",
        "properties": {
            "type": {"type": "string", "minLength": 1, "description": "a resource type token"},
            "resource": {
                "type": "string",
                "minLength": 1,
                "description": "URN or resource name; * and ? wildcards",
            },
            "reason": {"type": "string", "minLength": 10},
        },
        "required": ["reason"],
        "oneOf": [{"required": ["type"]}, {"required": ["resource"]}],
        "additionalProperties": False,
    },
    "default": [],
}


def help_url(name: str) -> str:
    """A policy's help: its row of docs/policies.md's table (anchored ``policy-<name>``)."""
    return f"{PROJECT_URL}/blob/main/docs/policies.md#policy-{name}"


def _about(
    name: str, display_name: str, tags: Sequence[str], severity: Severity | None
) -> dict[str, Any]:
    """The report metadata every policy carries, as the SDK's Policy takes it."""
    if not tags or not set(tags) <= {SECURITY, COST}:
        raise ValueError(f"{name}: tags must be {SECURITY!r} and/or {COST!r}, not {tags!r}")
    if (SECURITY in tags) != (severity is not None):
        raise ValueError(f"{name}: a severity for security policies, and only for them")
    return {
        "display_name": display_name,
        "tags": list(tags),
        "severity": severity,
        "url": help_url(name),
    }


@dataclass(frozen=True)
class ResourceView:
    type: str
    name: str
    urn: str
    props: dict[str, Any]
    provider_props: dict[str, Any]
    # Custom resources and remote components have one (``StackResource.has_provider``).
    has_provider: bool = True


@dataclass(frozen=True)
class RuleViolation:
    urn: str | None  # the resource it is about; None: the stack as a whole
    message: str
    # At most advisory, whatever the policy's level: what only a preview does not know yet.
    advisory: bool = False


@dataclass
class Findings:
    violations: list[RuleViolation] = field(default_factory=list)
    # (property path, unknown sentinel) that kept the rule from deciding, for an advisory.
    unknown: tuple[Sequence[str | int], Any] | None = None

    def violate(self, message: str, urn: str | None = None, *, advisory: bool = False) -> None:
        self.violations.append(RuleViolation(urn, message, advisory))


class Reporter:
    """What the pack's servicer (``serving.analyzer_servicer``) hands a policy to report with:
    called as the SDK's ``ReportViolation`` (at the policy's level), and besides, a report at
    the advisory level and a not-applicable note. The SDK's own servicer hands a plain function;
    the builders then report everything at the policy's level and drop the notes."""

    def __init__(
        self,
        at_level: ReportViolation,
        advisory: ReportViolation,
        note: Callable[[str], None],
    ) -> None:
        self._at_level = at_level
        self.advisory = advisory
        self.note = note

    def __call__(self, message: str, urn: str | None = None) -> None:
        self._at_level(message, urn)


class Settings(Mapping[str, Any]):
    """A policy's config, falling back to the defaults in its schema."""

    def __init__(self, config: Mapping[str, Any], schema: dict[str, dict[str, Any]]) -> None:
        self._values = {k: v["default"] for k, v in schema.items() if "default" in v}
        self._values.update(config)

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Any:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


def _suppression(settings: Settings, urn: str, name: str) -> str | None:
    for entry in settings.get("suppressions") or []:
        pattern = str(entry.get("resource", ""))
        if fnmatchcase(urn, pattern) or fnmatchcase(name, pattern):
            return str(entry.get("reason", ""))
    return None


def _downgrade(settings: Settings, type_: str, urn: str, name: str) -> str | None:
    """The reason the policy config gives for reporting violations on this resource as
    advisory; None when it gives none."""
    for entry in settings.get("advisory") or []:
        if "type" in entry:
            matched = type_ == entry["type"]
        else:
            pattern = str(entry.get("resource", ""))
            matched = fnmatchcase(urn, pattern) or fnmatchcase(name, pattern)
        if matched:
            return str(entry.get("reason", ""))
    return None


def _report(
    report_violation: ReportViolation,
    settings: Settings,
    violation: RuleViolation,
    resource: tuple[str, str, str] | None,
) -> None:
    """Report ``violation`` (on ``resource``: type, URN, name) at the policy's level, or as
    advisory where it says so or the config downgrades it."""
    message, advisory = violation.message, violation.advisory
    reason = _downgrade(settings, *resource) if resource is not None else None
    if reason is not None:
        message, advisory = downgraded(message, reason), True
    report = report_violation
    if advisory and isinstance(report_violation, Reporter):
        report = report_violation.advisory
    report(message, violation.urn)


def _schema(properties: dict[str, dict[str, Any]]) -> PolicyConfigSchema:
    return PolicyConfigSchema(
        properties={
            **properties,
            "suppressions": SUPPRESSIONS_SCHEMA,
            "advisory": ADVISORY_SCHEMA,
        }
    )


def _to_stack_resources(resources: list[PolicyResource]) -> list[StackResource]:
    return [
        StackResource(
            r.resource_type,
            r.name,
            r.urn,
            plain(r.props),
            plain(r.provider.props) if r.provider is not None else {},
            r.parent.urn if r.parent is not None else None,
            {k: [d.urn for d in v] for k, v in r.property_dependencies.items()},
            r.provider is not None,
        )
        for r in resources
    ]


# The stack policies of one request get the same resource list from the pack's servicer.
_stack_resources = SameInputMemo(_to_stack_resources)


class TypedResourcePolicy(ResourceValidationPolicy):
    """A resource policy that says which resource types it looks at, so the pack's servicer
    can skip it for the others (its validate returns at once for them anyway)."""

    def __init__(self, *, applies_to: Callable[[str], bool], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.applies_to = applies_to


ResourceRule = Callable[[ResourceView, Settings], Findings]
StackRule = Callable[[list[StackResource], Settings], Findings]


def resource_policy(
    name: str,
    description: str,
    rule: ResourceRule,
    *,
    config: dict[str, dict[str, Any]],
    applies_to: Iterable[str] | Callable[[str], bool],
    display_name: str,
    tags: Sequence[str],
    severity: Severity | None = None,
    enforcement_level: EnforcementLevel = EnforcementLevel.MANDATORY,
    remediation_steps: str | None = None,
) -> TypedResourcePolicy:
    """A resource policy running ``rule`` on the types ``applies_to`` selects (the Python SDK
    has no type filter: every policy sees every resource)."""
    schema = _schema(config)
    wanted = applies_to if callable(applies_to) else frozenset(applies_to).__contains__

    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        if not wanted(args.resource_type):
            return
        settings = Settings(args.get_config(), schema.properties)
        view = ResourceView(
            args.resource_type,
            args.name,
            args.urn,
            plain(args.props),
            plain(args.provider.props) if args.provider is not None else {},
            args.provider is not None,
        )
        findings = rule(view, settings)
        if findings.violations:
            reason = _suppression(settings, args.urn, args.name)
            if reason is not None:
                args.not_applicable(suppressed_note(reason))
        resource = (args.resource_type, args.urn, args.name)
        for violation in findings.violations:
            _report(report_violation, settings, violation, resource)
        if findings.unknown is not None and not findings.violations:
            raise unknown_error(*findings.unknown)

    return TypedResourcePolicy(
        applies_to=wanted,
        name=name,
        description=description,
        validate=validate,
        enforcement_level=enforcement_level,
        config_schema=schema,
        remediation_steps=remediation_steps,
        **_about(name, display_name, tags, severity),
    )


def stack_policy(
    name: str,
    description: str,
    rule: StackRule,
    *,
    config: dict[str, dict[str, Any]],
    display_name: str,
    tags: Sequence[str],
    severity: Severity | None = None,
    enforcement_level: EnforcementLevel = EnforcementLevel.MANDATORY,
    remediation_steps: str | None = None,
) -> StackValidationPolicy:
    schema = _schema(config)

    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        settings = Settings(args.get_config(), schema.properties)
        resources = _stack_resources(args.resources)
        by_urn = {r.urn: r for r in resources}
        noted: set[str] = set()
        for violation in rule(resources, settings).violations:
            urn = violation.urn
            found = by_urn.get(urn) if urn is not None else None
            resource = (found.type, found.urn, found.name) if found is not None else None
            name = found.name if found is not None else ""
            reason = _suppression(settings, urn, name) if urn is not None else None
            if urn is None or reason is None:
                _report(report_violation, settings, violation, resource)
            elif urn not in noted and isinstance(report_violation, Reporter):
                noted.add(urn)
                report_violation.note(suppressed_note(reason, urn))

    return StackValidationPolicy(
        name=name,
        description=description,
        validate=validate,
        enforcement_level=enforcement_level,
        config_schema=schema,
        remediation_steps=remediation_steps,
        **_about(name, display_name, tags, severity),
    )

"""Resources as the Pulumi engine hands them to a policy pack.

An ``AnalyzerResource`` carries what the engine sends in ``Analyze`` (type, URN, name, inputs,
options, provider) and ``AnalyzeStack`` (the resource's state — outputs over inputs — parent,
dependencies, property dependencies), plus where it came from (the program line that created
it), for reports. Two sources:

- ``from_capture``: an offline-engine capture (``gpufleet preview``'s), values converted from
  the SDK's wire form to the engine's (resource references become ids or URNs, output values
  their value or the unknown sentinel, secrets stay marked); resources on their package's
  default provider get one synthesized from the stack config, as the engine would;
- ``from_deployment``: a ``pulumi stack export`` file (ours or the CLI's).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpufleet.engine.capture import STACK_TYPE, Capture, Registration
from gpufleet.engine.wire import (
    OUTPUT_VALUE_SIG,
    RESOURCE_REF_SIG,
    SECRET_SIG,
    SIG_KEY,
    UNKNOWN,
)


class DeploymentError(ValueError):
    """A stack export that cannot be analyzed (a user mistake: exit 2)."""


@dataclass(frozen=True)
class ProviderRef:
    type: str
    urn: str
    name: str
    properties: dict[str, Any]


@dataclass
class AnalyzerResource:
    urn: str
    type: str
    name: str
    custom: bool
    inputs: dict[str, Any]
    state: dict[str, Any]
    parent: str = ""
    provider: ProviderRef | None = None
    dependencies: list[str] = field(default_factory=list)
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    protect: bool = False
    ignore_changes: list[str] = field(default_factory=list)
    delete_before_replace: bool = False
    additional_secret_outputs: list[str] = field(default_factory=list)
    source: tuple[str, int] | None = None


def engine_value(value: Any) -> Any:
    """A wire-form value (``engine.wire``) as the engine stores and forwards it."""
    if isinstance(value, list):
        return [engine_value(v) for v in value]
    if not isinstance(value, dict):
        return value
    sig = value.get(SIG_KEY)
    if sig == OUTPUT_VALUE_SIG:
        inner = engine_value(value["value"]) if "value" in value else UNKNOWN
        return {SIG_KEY: SECRET_SIG, "value": inner} if value.get("secret") else inner
    if sig == RESOURCE_REF_SIG:
        if "id" in value:
            return engine_value(value["id"]) or UNKNOWN
        return value.get("urn", UNKNOWN)
    if sig == SECRET_SIG:
        return {SIG_KEY: SECRET_SIG, "value": engine_value(value.get("value", UNKNOWN))}
    return {k: engine_value(v) for k, v in value.items()}


def from_capture(capture: Capture) -> list[AnalyzerResource]:
    registrations = capture.ordered()
    providers = {r.urn: r for r in registrations if r.is_provider}
    defaults: dict[str, ProviderRef] = {}
    out = []
    for r in registrations:
        inputs = engine_value(r.inputs)
        state = {**inputs, **engine_value(r.outputs)} if r.custom else inputs
        out.append(
            AnalyzerResource(
                urn=r.urn,
                type=r.type,
                name=r.name,
                custom=r.custom,
                inputs=inputs,
                state=state,
                parent=r.parent,
                provider=_provider_of(r, providers, defaults, capture),
                dependencies=list(r.dependencies),
                property_dependencies=dict(r.property_dependencies),
                protect=r.protect,
                ignore_changes=list(r.ignore_changes),
                delete_before_replace=r.delete_before_replace,
                additional_secret_outputs=list(r.additional_secret_outputs),
                source=r.source,
            )
        )
    return out


def _provider_of(
    r: Registration,
    providers: dict[str, Registration],
    defaults: dict[str, ProviderRef],
    capture: Capture,
) -> ProviderRef | None:
    if not r.custom or r.is_provider or r.type == STACK_TYPE:
        return None
    if r.provider:
        provider = providers.get(r.provider.rsplit("::", 1)[0])
        if provider is not None:
            return ProviderRef(provider.type, provider.urn, provider.name, provider.inputs)
    package = r.type.split(":", 1)[0]
    if package not in defaults:
        # The engine's default provider is configured from the stack's "<package>:" keys.
        prefix = f"{package}:"
        properties = {
            key.removeprefix(prefix): _config_value(value)
            for key, value in capture.config.items()
            if key.startswith(prefix)
        }
        urn = f"urn:pulumi:{capture.stack}::{capture.project}::pulumi:providers:{package}::default"
        defaults[package] = ProviderRef(f"pulumi:providers:{package}", urn, "default", properties)
    return defaults[package]


def _config_value(text: str) -> Any:
    try:
        return json.loads(text) if text[:1] in "{[" else text
    except ValueError:
        return text


def load_deployment(path: Path) -> tuple[list[AnalyzerResource], str]:
    """(the resources, the project name) of a stack export file; DeploymentError if unusable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DeploymentError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise DeploymentError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    resources = from_deployment(data, str(path))
    stack_urn = next((r.urn for r in resources if r.type == STACK_TYPE), "")
    # urn:pulumi:<stack>::<project>::pulumi:pulumi:Stack::<name>
    project = stack_urn.split("::")[1] if stack_urn.count("::") >= 2 else "project"
    return resources, project


def from_deployment(data: Any, source: str) -> list[AnalyzerResource]:
    """Resources of a ``pulumi stack export`` document (version 3)."""
    if not isinstance(data, dict) or data.get("version") != 3:
        raise DeploymentError(f"{source}: not a stack export (expected version: 3)")
    resources = (data.get("deployment") or {}).get("resources")
    if not isinstance(resources, list):
        raise DeploymentError(f"{source}: deployment.resources is missing")
    by_urn = {r.get("urn"): r for r in resources if isinstance(r, dict)}
    out = []
    for index, r in enumerate(resources):
        if not isinstance(r, dict) or not isinstance(r.get("urn"), str) or "type" not in r:
            raise DeploymentError(f"{source}: deployment.resources[{index}] has no urn/type")
        inputs = _from_state(r.get("inputs") or {})
        outputs = _from_state(r.get("outputs") or {})
        provider = None
        if r.get("provider"):
            p = by_urn.get(str(r["provider"]).rsplit("::", 1)[0])
            if p is not None:
                provider = ProviderRef(
                    p["type"], p["urn"], _urn_name(p["urn"]), _from_state(p.get("inputs") or {})
                )
        position = r.get("sourcePosition")
        out.append(
            AnalyzerResource(
                urn=r["urn"],
                type=r["type"],
                name=_urn_name(r["urn"]),
                custom=bool(r.get("custom")),
                inputs=inputs,
                state={**inputs, **outputs},
                parent=r.get("parent") or "",
                provider=provider,
                dependencies=list(r.get("dependencies") or []),
                property_dependencies=dict(r.get("propertyDependencies") or {}),
                protect=bool(r.get("protect")),
                source=_source_position(position) if isinstance(position, str) else None,
            )
        )
    return out


def _urn_name(urn: str) -> str:
    return urn.rsplit("::", 1)[-1]


def _source_position(text: str) -> tuple[str, int] | None:
    # "project://path/to/file.py#12,5" or "file:///abs/file.py#12"
    location, _, position = text.partition("#")
    line = position.split(",", 1)[0]
    if not line.isdigit():
        return None
    return location.split("://", 1)[-1], int(line)


def _from_state(value: Any) -> Any:
    """Checkpoint-form values (secrets as plaintext / ciphertext) in engine form."""
    if isinstance(value, list):
        return [_from_state(v) for v in value]
    if not isinstance(value, dict):
        return value
    if value.get(SIG_KEY) == SECRET_SIG:
        if "plaintext" in value:
            return {SIG_KEY: SECRET_SIG, "value": _from_state(json.loads(value["plaintext"]))}
        # Encrypted for the stack's secrets provider: not readable here.
        return {SIG_KEY: SECRET_SIG, "value": UNKNOWN}
    return {k: _from_state(v) for k, v in value.items()}

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
from urllib.parse import unquote

from gpufleet.engine.capture import STACK_TYPE, Capture, Registration, offline_where_referenced
from gpufleet.engine.wire import (
    OFFLINE_UNKNOWN,
    OUTPUT_VALUE_SIG,
    RESOURCE_REF_SIG,
    SECRET_PLACEHOLDER,
    SECRET_SIG,
    SIG_KEY,
    UNKNOWN,
)
from gpufleet.json_input import JsonInputError, problem_at, read_json_file


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


def engine_value(value: Any, unknown: str = UNKNOWN) -> Any:
    """A wire-form value (``engine.wire``) as the engine stores and forwards it; ``unknown``
    is what an unknown becomes (outside a preview, ``OFFLINE_UNKNOWN``)."""
    if isinstance(value, list):
        return [engine_value(v, unknown) for v in value]
    if not isinstance(value, dict):
        return unknown if value == UNKNOWN else value
    sig = value.get(SIG_KEY)
    if sig == OUTPUT_VALUE_SIG:
        inner = engine_value(value["value"], unknown) if "value" in value else unknown
        return {SIG_KEY: SECRET_SIG, "value": inner} if value.get("secret") else inner
    if sig == RESOURCE_REF_SIG:
        if "id" in value:
            return engine_value(value["id"], unknown) or unknown
        return value.get("urn", unknown)
    if sig == SECRET_SIG:
        return {SIG_KEY: SECRET_SIG, "value": engine_value(value.get("value", UNKNOWN), unknown)}
    return {k: engine_value(v, unknown) for k, v in value.items()}


def from_capture(capture: Capture) -> list[AnalyzerResource]:
    registrations = capture.ordered()
    providers = {r.urn: r for r in registrations if r.is_provider}
    defaults: dict[str, ProviderRef] = {}
    out = []
    # Outside a preview nothing is unknown once deployed: what is unknown here is what the
    # offline engine could not answer, which the readers must not take for a preview's unknown.
    unknown = UNKNOWN if capture.preview else OFFLINE_UNKNOWN
    for r in registrations:
        inputs = offline_where_referenced(r, engine_value(r.inputs, unknown))
        # A component's outputs are what it registered (register_outputs), as in a state.
        # Without any, the state is the inputs themselves (the analyzer client sends one
        # message for both).
        outputs = offline_where_referenced(r, engine_value(r.outputs, unknown))
        state = {**inputs, **outputs} if outputs else inputs
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
    if not r.has_provider or r.type == STACK_TYPE:
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
        data, text = read_json_file(path, what="a stack export")
    except JsonInputError as exc:
        raise DeploymentError(str(exc)) from None
    resources = from_deployment(data, str(path), text)
    return resources, project_of(resources)


def project_of(resources: list[AnalyzerResource]) -> str:
    """The project a deployment's resources belong to, from the stack's URN."""
    stack_urn = next((r.urn for r in resources if r.type == STACK_TYPE), "")
    # urn:pulumi:<stack>::<project>::pulumi:pulumi:Stack::<name>
    return stack_urn.split("::")[1] if stack_urn.count("::") >= 2 else "project"


def from_deployment(data: Any, source: str, text: str = "") -> list[AnalyzerResource]:
    """Resources of a ``pulumi stack export`` document (version 3, or 4 with the features it
    uses: its resources are read the same); DeploymentError naming the first field that is not
    what a deployment holds (its line, given the file's ``text``)."""

    def bad(path: tuple[str | int, ...], message: str) -> DeploymentError:
        return DeploymentError(problem_at(source, text, path, message))

    if not isinstance(data, dict) or data.get("version") not in (3, 4):
        raise bad(("version",), "not a stack export (expected version: 3 or 4)")
    deployment = data.get("deployment")
    resources = deployment.get("resources") if isinstance(deployment, dict) else None
    if not isinstance(resources, list):
        raise bad(("deployment", "resources"), "missing (not a stack export?)")
    by_urn = {
        r.get("urn"): r for r in resources if isinstance(r, dict) and r.get("delete") is not True
    }
    out = []
    seen: set[str] = set()
    for index, r in enumerate(resources):
        where: tuple[str | int, ...] = ("deployment", "resources", index)
        if not isinstance(r, dict) or not isinstance(r.get("urn"), str) or not r["urn"]:
            raise bad((*where, "urn"), "missing or not a string")
        if not isinstance(r.get("type"), str):
            raise bad((*where, "type"), "missing or not a string")
        if r.get("delete") is True:
            # The old half of a replacement, waiting to be deleted: not what the stack runs.
            continue
        # Pulumi refuses such a checkpoint too; here it would count one resource twice.
        if r["urn"] in seen:
            raise bad((*where, "urn"), f"{r['urn']} appears more than once")
        seen.add(r["urn"])
        try:
            out.append(_deployed(r, by_urn))
        except _BadFieldError as exc:
            raise bad((*where, *exc.path), exc.message) from None
        except RecursionError:
            raise bad(where, "nested too deeply") from None
    return out


class _BadFieldError(Exception):
    """A field of one deployed resource that is not what a deployment holds."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.path = (key,)
        self.message = message


def _deployed(r: dict[str, Any], by_urn: dict[Any, Any]) -> AnalyzerResource:
    inputs = _state_field(r, "inputs")
    outputs = _state_field(r, "outputs")
    provider = None
    if r.get("provider"):
        reference = _typed(r, "provider", str, "")
        p = by_urn.get(reference.rsplit("::", 1)[0])
        if p is not None and isinstance(p.get("type"), str):
            provider = ProviderRef(
                p["type"], p["urn"], _urn_name(p["urn"]), _state_field(p, "inputs")
            )
    if provider is None and r.get("custom") and not _is_engine_type(r["type"]):
        # Every custom resource has a provider; an export that leaves it out (written by
        # hand, cut down) still describes one: the package's default, configured as nothing
        # here says. Without it the resource would pass for a component, which holds nothing.
        package = r["type"].split(":", 1)[0]
        stack_part, project = [*r["urn"].split("::"), "", ""][:2]  # urn:pulumi:<stack>
        provider = ProviderRef(
            f"pulumi:providers:{package}",
            f"{stack_part}::{project}::pulumi:providers:{package}::default",
            "default",
            {},
        )
    dependencies = _typed(r, "dependencies", list, [])
    property_dependencies = _typed(r, "propertyDependencies", dict, {})
    if not all(isinstance(d, str) for d in dependencies):
        raise _BadFieldError("dependencies", "not a list of URNs")
    if not all(
        isinstance(urns, list) and all(isinstance(u, str) for u in urns)
        for urns in property_dependencies.values()
    ):
        raise _BadFieldError("propertyDependencies", "not a map of property to URNs")
    position = r.get("sourcePosition")
    return AnalyzerResource(
        urn=r["urn"],
        type=r["type"],
        name=_urn_name(r["urn"]),
        custom=bool(r.get("custom")),
        inputs=inputs,
        state={**inputs, **outputs} if outputs else inputs,
        parent=_typed(r, "parent", str, ""),
        provider=provider,
        dependencies=list(dependencies),
        property_dependencies={k: list(v) for k, v in property_dependencies.items()},
        protect=bool(r.get("protect")),
        source=_source_position(position) if isinstance(position, str) else None,
    )


def _is_engine_type(type_: str) -> bool:
    """The engine's own resources (the stack, providers, stack references): no provider."""
    return type_.startswith("pulumi:")


def _typed(r: dict[str, Any], key: str, kind: type, default: Any) -> Any:
    value = r.get(key)
    if value is None:
        return default
    if not isinstance(value, kind):
        raise _BadFieldError(key, f"expected {_KINDS[kind]}, not {type(value).__name__}")
    return value


_KINDS: dict[type, str] = {list: "a list", dict: "an object", str: "a string"}


def _state_field(r: dict[str, Any], key: str) -> dict[str, Any]:
    value = _typed(r, key, dict, {})
    try:
        return _from_state(value)
    except (ValueError, TypeError):
        raise _BadFieldError(key, "a secret's plaintext is not JSON text") from None
    except RecursionError:
        raise _BadFieldError(key, "nested too deeply") from None


def _urn_name(urn: str) -> str:
    return urn.rsplit("::", 1)[-1]


def _source_position(text: str) -> tuple[str, int] | None:
    # "project:///path/from/the/project/root.py#12,5" (the engine's form) or
    # "file:///abs/file.py#12": a URI, so a "#" in the path is %23 and the first "#" starts
    # the position; the path percent-decoded.
    location, _, position = text.partition("#")
    line = position.split(",", 1)[0]
    if not line.isdigit():
        return None
    scheme, _, path = location.partition("://")
    path = unquote(path)
    return (path.removeprefix("/") if scheme == "project" else path), int(line)


def _from_state(value: Any) -> Any:
    """Checkpoint-form values (secrets as plaintext / ciphertext) in engine form."""
    if isinstance(value, list):
        return [_from_state(v) for v in value]
    if not isinstance(value, dict):
        return value
    if value.get(SIG_KEY) == SECRET_SIG:
        if "plaintext" in value:
            return {SIG_KEY: SECRET_SIG, "value": _from_state(json.loads(value["plaintext"]))}
        # Encrypted for the stack's secrets provider: known to the engine, not readable here
        # (not unknown, as a preview's values are).
        return {SIG_KEY: SECRET_SIG, "value": SECRET_PLACEHOLDER}
    return {k: _from_state(v) for k, v in value.items()}

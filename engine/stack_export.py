"""A capture as a ``pulumi stack export`` deployment (version 3, or 4 naming its features).

The shape is the CLI's checkpoint format: ``{"version": 3, "deployment": {"manifest": ...,
"resources": [...]}}``; version 4 with ``"features"`` when a resource uses one an older CLI
would not know (``replaceWith``, resource hooks), as the CLI writes it. The root stack comes
first, then every resource after its parent, provider and dependencies. Custom resources that
used the default provider of their package point at a synthesized ``default_<version>``
provider resource, as in a real state. Secrets are written in the ``--show-secrets`` form
(``plaintext``), since nothing here holds the stack's key; the caller names the secrets
provider that ``pulumi stack import`` encrypts them with (``export_secrets``). In a preview
capture unknown values keep the engine's unknown sentinel.

``pulumi policy analyze --file`` and ``pulumi stack import`` read this; ``STACK_EXPORT_SCHEMA``
(``stack_export.schema.json``) describes it and the tests validate every export against it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import uuid
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import quote

from gpufleet.atomic_write import atomic_write_text
from gpufleet.engine.capture import STACK_TYPE, Capture, Registration, offline_where_referenced
from gpufleet.engine.wire import OFFLINE_UNKNOWN, SECRET_SIG, SIG_KEY, UNKNOWN

STACK_EXPORT_SCHEMA = Path(__file__).with_name("stack_export.schema.json")


def deployment(
    capture: Capture, *, time: datetime | None = None, project_root: Path | None = None
) -> dict[str, Any]:
    """``project_root``: the folder of ``Pulumi.yaml``, which source positions are relative to
    (none are written without it)."""
    # The engine's version as the CLI writes it, and the magic the CLI derives from it.
    engine_version = f"v{_version('pulumi')}"
    when = (time or _now()).isoformat()
    unknown = UNKNOWN if capture.preview else OFFLINE_UNKNOWN
    resources: list[dict[str, Any]] = [
        {
            "urn": capture.stack_urn,
            "custom": False,
            "type": STACK_TYPE,
            "outputs": _state(capture.exports, unknown),
        }
    ]
    default_providers: dict[str, dict[str, Any]] = {}
    for registration in capture.ordered():
        provider = registration.provider
        if registration.has_provider and not provider:
            package = registration.type.split(":", 1)[0]
            if package not in default_providers:
                default_providers[package] = _default_provider(capture, package)
                resources.append(default_providers[package])
            entry = default_providers[package]
            provider = f"{entry['urn']}::{entry['id']}"
        resources.append(_resource(registration, provider, project_root, unknown))
    for resource in resources:
        # A fresh deployment: every resource created, and last modified, now.
        resource["created"] = resource["modified"] = when
    # As the CLI writes it (stack.SerializeDeploymentWithMetadata): a deployment using a feature
    # older CLIs do not know is version 4 and names it, so they refuse it rather than drop it.
    features = sorted({f for r in resources for key, f in _FEATURES.items() if key in r})
    return {
        "version": 4 if features else 3,
        **({"features": features} if features else {}),
        "deployment": {
            "manifest": {
                "time": when,
                "magic": hashlib.sha256(engine_version.encode()).hexdigest(),  # NewMagic
                "version": engine_version,
            },
            "resources": resources,
        },
    }


def deployment_text(capture: Capture, *, project_root: Path | None = None) -> str:
    return deployment_json(deployment(capture, project_root=project_root))


def deployment_json(export: dict[str, Any]) -> str:
    return json.dumps(export, indent=2) + "\n"


def write_deployment(capture: Capture, path: Path, *, project_root: Path | None = None) -> None:
    atomic_write_text(path, deployment_text(capture, project_root=project_root))


def _resource(
    r: Registration, provider: str, project_root: Path | None, unknown: str = UNKNOWN
) -> dict[str, Any]:
    entry: dict[str, Any] = {"urn": r.urn, "custom": r.custom}
    if r.custom and r.id:
        entry["id"] = r.id
    entry["type"] = r.type
    entry["inputs"] = _state(offline_where_referenced(r, r.inputs), unknown)
    entry["outputs"] = _state(offline_where_referenced(r, r.outputs), unknown)
    if r.parent:
        entry["parent"] = r.parent
    if r.protect:
        entry["protect"] = True
    if r.retain_on_delete:
        entry["retainOnDelete"] = True
    entry["dependencies"] = list(r.dependencies)
    if r.has_provider and provider:
        entry["provider"] = provider
    entry["propertyDependencies"] = {k: list(v) for k, v in sorted(r.property_dependencies.items())}
    # The options the engine records in a checkpoint (stack.SerializeResource), where set.
    # Aliases are not among them: the engine records only the alias that matched a resource
    # of the previous state, and an export of a fresh deployment has no previous state.
    options: dict[str, Any] = {
        "additionalSecretOutputs": list(r.additional_secret_outputs),
        "customTimeouts": _state(_timeouts_in_seconds(r.custom_timeouts)),
        "importID": r.import_id,
        "deletedWith": r.deleted_with,
        "replaceWith": list(r.replace_with),
        "ignoreChanges": list(r.ignore_changes),
        "hideDiff": list(r.hide_diffs),
        "replaceOnChanges": list(r.replace_on_changes),
    }
    if project_root is not None and r.source is not None:
        options["sourcePosition"] = _source_position(project_root, *r.source, r.source_column)
        options["stackTrace"] = [
            {"sourcePosition": _source_position(project_root, *frame)} for frame in r.stack_trace
        ]
    entry.update({key: value for key, value in options.items() if value})
    if r.replacement_trigger is not None:  # any value, false and 0 too, as Go's omitempty
        entry["replacementTrigger"] = _state(r.replacement_trigger, unknown)
    if r.resource_hooks:
        entry["resourceHooks"] = dict(sorted(r.resource_hooks.items()))
    return entry


# The resource fields that make a deployment use a feature (stack.ApplyFeatures), of those
# gpufleet's exports can hold.
_FEATURES = {"replaceWith": "replaceWith", "resourceHooks": "hooks"}


def _source_position(root: Path, file: str, line: int, column: int) -> str:
    """As the engine writes it: ``project:///<path from the project root>#line[,column]``."""
    relative = Path(os.path.relpath(file, root)).as_posix()
    fragment = f"{line},{column}" if column else f"{line}"
    # Go's url.URL.String() leaves these path characters unescaped.
    return f"project:///{quote(relative, safe='/$&+,:;=@')}#{fragment}"


# Go's time.ParseDuration units, in seconds.
_DURATION_UNITS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1,
    "m": 60,
    "h": 3600,
}
_DURATION_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_DURATION = re.compile(rf"[-+]?(?:{_DURATION_PART.pattern})+|[-+]?0")


def _timeouts_in_seconds(timeouts: dict[str, str]) -> dict[str, float]:
    """Go duration strings as the engine stores them (seconds); one it cannot parse fails the
    registration in a real deployment, and is left out here."""
    seconds = {}
    for operation, text in timeouts.items():
        if not _DURATION.fullmatch(text):
            continue
        total = sum(float(n) * _DURATION_UNITS[unit] for n, unit in _DURATION_PART.findall(text))
        if total:
            seconds[operation] = -total if text.startswith("-") else total
    return seconds


def _default_provider(capture: Capture, package: str) -> dict[str, Any]:
    version = _version(f"pulumi-{package}") if package != "pulumi" else _version("pulumi")
    name = "default_" + version.replace(".", "_").replace("-", "_")
    urn = f"urn:pulumi:{capture.stack}::{capture.project}::pulumi:providers:{package}::{name}"
    provider_id = str(uuid.uuid5(uuid.NAMESPACE_URL, urn))
    # A default provider is configured from the stack's "<package>:" keys, and its state says
    # so (as text, as the engine passes provider config): region, default tags, ...
    prefix = f"{package}:"
    settings = {
        key.removeprefix(prefix): value
        for key, value in sorted(capture.config.items())
        if key.startswith(prefix)
    }
    return {
        "urn": urn,
        "custom": True,
        "id": provider_id,
        "type": f"pulumi:providers:{package}",
        "inputs": {**settings, "version": version},
        "outputs": {**settings, "version": version},
        "dependencies": [],
        "propertyDependencies": {},
    }


def _state(value: Any, unknown: str = UNKNOWN) -> Any:
    """Wire-form values in checkpoint form: secrets carry their plaintext as JSON text, whole
    numbers written as Go writes a float64 (``100``, not ``100.0``); an unknown as ``unknown``
    (outside a preview, ``OFFLINE_UNKNOWN``: a deployed state holds no unknowns)."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= _EXACT:
        return int(value)
    if value == UNKNOWN:
        return unknown
    if isinstance(value, list):
        return [_state(v, unknown) for v in value]
    if not isinstance(value, dict):
        return value
    if value.get(SIG_KEY) == SECRET_SIG and "value" in value:
        return {SIG_KEY: SECRET_SIG, "plaintext": _go_json(_state(value["value"], unknown))}
    return {k: _state(v, unknown) for k, v in value.items()}


def _go_json(value: Any) -> str:
    """``value`` as Go's json.Marshal writes it (a secret's plaintext): compact, keys sorted,
    HTML characters and line separators escaped."""
    text = json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return text.translate(_GO_ESCAPES)


_GO_ESCAPES = str.maketrans({c: f"\\u{ord(c):04x}" for c in "<>&\u2028\u2029"})
# Whole numbers a float64 holds exactly; Go writes larger ones in exponent form (1e+21).
_EXACT = 2**53


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "0.0.0"


def _now() -> datetime:
    # SOURCE_DATE_EPOCH makes exports reproducible (reproducible-builds.org convention).
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.isdigit():
        return datetime.fromtimestamp(int(epoch), UTC)
    return datetime.now(UTC)

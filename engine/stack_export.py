"""A capture as a ``pulumi stack export`` deployment (version 3).

The shape is the CLI's checkpoint format: ``{"version": 3, "deployment": {"manifest": ...,
"resources": [...]}}`` with the root stack first, then every resource after its parent, provider
and dependencies. Custom resources that used the default provider of their package point at a
synthesized ``default_<version>`` provider resource, as in a real state. Secrets are written in
the ``--show-secrets`` form (``plaintext``), since nothing here can encrypt for the stack's
secrets provider; in a preview capture unknown values keep the engine's unknown sentinel.

``pulumi policy analyze --file`` and ``pulumi stack import`` read this; ``STACK_EXPORT_SCHEMA``
(``stack_export.schema.json``) describes it and the tests validate every export against it.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from gpufleet.atomic_write import atomic_write_text
from gpufleet.engine.capture import STACK_TYPE, Capture, Registration
from gpufleet.engine.wire import SECRET_SIG, SIG_KEY

STACK_EXPORT_SCHEMA = Path(__file__).with_name("stack_export.schema.json")


def deployment(capture: Capture, *, time: datetime | None = None) -> dict[str, Any]:
    # The engine's version as the CLI writes it, and the magic the CLI derives from it.
    engine_version = f"v{_version('pulumi')}"
    resources: list[dict[str, Any]] = [
        {
            "urn": capture.stack_urn,
            "custom": False,
            "type": STACK_TYPE,
            "outputs": _state(capture.exports),
        }
    ]
    default_providers: dict[str, dict[str, Any]] = {}
    for registration in capture.ordered():
        provider = registration.provider
        if registration.custom and not provider and not registration.is_provider:
            package = registration.type.split(":", 1)[0]
            if package not in default_providers:
                default_providers[package] = _default_provider(capture, package)
                resources.append(default_providers[package])
            entry = default_providers[package]
            provider = f"{entry['urn']}::{entry['id']}"
        resources.append(_resource(registration, provider))
    return {
        "version": 3,
        "deployment": {
            "manifest": {
                "time": (time or _now()).isoformat(),
                "magic": hashlib.sha256(engine_version.encode()).hexdigest(),  # NewMagic
                "version": engine_version,
            },
            "resources": resources,
        },
    }


def deployment_text(capture: Capture) -> str:
    return json.dumps(deployment(capture), indent=2) + "\n"


def write_deployment(capture: Capture, path: Path) -> None:
    atomic_write_text(path, deployment_text(capture))


def _resource(r: Registration, provider: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"urn": r.urn, "custom": r.custom}
    if r.custom and r.id:
        entry["id"] = r.id
    entry["type"] = r.type
    entry["inputs"] = _state(r.inputs)
    entry["outputs"] = _state(r.outputs)
    if r.parent:
        entry["parent"] = r.parent
    if r.protect:
        entry["protect"] = True
    if r.retain_on_delete:
        entry["retainOnDelete"] = True
    entry["dependencies"] = list(r.dependencies)
    if r.custom and provider:
        entry["provider"] = provider
    entry["propertyDependencies"] = {k: list(v) for k, v in sorted(r.property_dependencies.items())}
    # The options the engine records in a checkpoint, where set.
    options = {
        "additionalSecretOutputs": list(r.additional_secret_outputs),
        "aliases": list(r.aliases),
        "deletedWith": r.deleted_with,
        "ignoreChanges": list(r.ignore_changes),
        "replaceOnChanges": list(r.replace_on_changes),
    }
    entry.update({key: value for key, value in options.items() if value})
    return entry


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


def _state(value: Any) -> Any:
    """Wire-form values in checkpoint form: secrets carry their plaintext as JSON text."""
    if isinstance(value, list):
        return [_state(v) for v in value]
    if not isinstance(value, dict):
        return value
    if value.get(SIG_KEY) == SECRET_SIG and "value" in value:
        return {SIG_KEY: SECRET_SIG, "plaintext": json.dumps(value["value"])}
    return {k: _state(v) for k, v in value.items()}


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

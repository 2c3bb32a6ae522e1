"""Policy pack config files (``--policy-pack-config``), read and reconciled as the engine does.

The file maps policy names to an enforcement level or an object of ``enforcementLevel`` plus
properties; ``"all"`` sets the level of every policy. Reconciling gives each policy of the pack
its level (policy default < pack's initial config < ``all`` < the policy's entry) and its
properties (schema defaults < initial config < the entry), then validates the properties
against the policy's config schema with jsonschema — which the Python policy SDK does not do,
so without this a typo'd limit would silently fall back to a default. Unknown policy names and
properties are errors too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema

from gpufleet.checks.analyzer_protocol import LEVELS, PackInfo
from gpufleet.json_input import JsonInputError, read_json_file, top_level_lines

ALL = "all"
# A policy config names each policy of a pack once, with a few properties: a few kilobytes.
MAX_POLICY_CONFIG_BYTES = 1024 * 1024


class PolicyConfigError(Exception):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def load_policy_config(path: Path) -> tuple[dict[str, Any], str]:
    """(the parsed file, its text); PolicyConfigError for an unreadable or non-object file."""
    try:
        data, text = read_json_file(path, what="a policy config", limit=MAX_POLICY_CONFIG_BYTES)
    except JsonInputError as exc:
        raise PolicyConfigError([str(exc)]) from None
    if not isinstance(data, dict):
        raise PolicyConfigError([f"{path}:1: json: expected an object of policy name -> settings"])
    return data, text


def reconcile(
    pack: PackInfo, config: dict[str, Any], *, path: Path | None = None, text: str = ""
) -> dict[str, tuple[str, dict[str, Any]]]:
    """Every policy's (enforcement level, properties); PolicyConfigError listing problems."""
    where = str(path) if path is not None else "policy config"
    problems: list[str] = []
    lines = top_level_lines(text)

    def at(key: str) -> str:
        return f"{where}:{lines.get(key, 1)}"

    known = {p.name for p in pack.policies}
    for key in config:
        if key != ALL and key not in known:
            problems.append(
                f"{at(key)}: {key}: no such policy in pack {pack.name} "
                f"(policies: {', '.join(sorted(known))})"
            )
    all_level = _level(config.get(ALL), ALL, at, problems)
    result: dict[str, tuple[str, dict[str, Any]]] = {}
    for policy in pack.policies:
        schema = policy.config_schema
        properties_schema = schema.get("properties", {})
        level = policy.level
        props = {k: v["default"] for k, v in properties_schema.items() if "default" in v}
        initial = pack.initial_config.get(policy.name) or {}
        level = initial.get("enforcementLevel", level)
        props.update({k: v for k, v in initial.items() if k != "enforcementLevel"})
        level = all_level or level
        entry = config.get(policy.name)
        if isinstance(entry, str):
            level = _level(entry, policy.name, at, problems) or level
        elif isinstance(entry, dict):
            level = _level(entry.get("enforcementLevel"), policy.name, at, problems) or level
            props.update({k: v for k, v in entry.items() if k != "enforcementLevel"})
        elif entry is not None:
            problems.append(
                f"{at(policy.name)}: {policy.name}: expected a level or an object, not {entry!r}"
            )
        validator = jsonschema.Draft7Validator(
            {
                "type": "object",
                "properties": properties_schema,
                "required": schema.get("required", []),
                "additionalProperties": False,
            },
            format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER,
        )
        for error in sorted(validator.iter_errors(props), key=lambda e: list(e.path)):
            field = ".".join([policy.name, *(str(p) for p in error.path)])
            problems.append(f"{at(policy.name)}: {field}: {error.message}")
        result[policy.name] = (level, props)
    if problems:
        raise PolicyConfigError(problems)
    return result


def _level(value: Any, key: str, at: Any, problems: list[str]) -> str | None:
    if value is None:
        return None
    if isinstance(value, dict) and key == ALL:
        value = value.get("enforcementLevel")
    if value not in LEVELS:
        problems.append(
            f"{at(key)}: {key}: enforcement level {value!r} is not one of {', '.join(LEVELS)}"
        )
        return None
    return str(value)

"""Reading resource property values that may be unknown.

Properties reach the readers here as plain JSON-like values (the policy pack's ``plain()``, a
capture's or an export's state unwrapped by ``engine.wire.plain``) in which a value the engine
cannot know yet (computed, during a preview) is the engine's unknown sentinel string. Reading a
path through one returns the sentinel, so every reader decides for itself what an unknown
means for the one field it needs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from gpufleet.engine.wire import UNKNOWN


def is_unknown(value: Any) -> bool:
    return value == UNKNOWN if type(value) is str else False


def resource_name(value: Any) -> str | None:
    """The name at the end of a resource's id, self link or URL (a plain name as it is, a
    ``?query`` dropped); None for anything else, or a value unknown during a preview."""
    if not isinstance(value, str) or is_unknown(value):
        return None
    return value.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or None


def get_path(props: Mapping[str, Any], *path: str | int) -> Any:
    """The value at ``path`` (keys and list indexes), None where it is absent; an unknown
    value part-way returns that unknown sentinel."""
    value: Any = props
    for step in path:
        if type(value) is str:
            return value if value == UNKNOWN else None
        if isinstance(step, int):
            if not isinstance(value, list) or step >= len(value):
                return None
            value = value[step]
        else:
            if not isinstance(value, dict):
                return None
            value = value.get(step)
    return value


def as_list(value: Any) -> list[Any]:
    """A list property as a list ([] when absent); an unknown stays ``[unknown]`` so callers
    that iterate see it."""
    if value is None:
        return []
    if isinstance(value, list):
        return value
    return [value]


def provider_object(value: Any) -> Any:
    """A provider's object-valued setting: providers receive nested objects as JSON text."""
    if isinstance(value, str) and value.startswith(("{", "[")):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def camel_keys(value: Any) -> Any:
    """``value`` with snake_case keys as the engine's camelCase, at every depth. The Python SDK
    translates a plain dict's keys only where an input has one type: under a union of types (an
    Azure ML compute's or deployment's ``properties``) they reach the engine as written."""
    if isinstance(value, dict):
        return {
            (_camel(k) if isinstance(k, str) and "_" in k else k): camel_keys(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [camel_keys(v) for v in value]
    return value


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)

"""Reading resource properties inside a policy without tripping over unknown values.

The Python CrossGuard SDK hands policies a proxy that raises ``UnknownValueError`` on reading
any unknown value, and the servicer turns that into an advisory "can't be known during
preview" for the whole policy — so a mandatory rule that merely walks past an unknown field it
does not care about is silently downgraded (pulumi-policy#258). Rules here read ``plain(props)``
instead: the same values with unknowns kept as sentinels, and decide for themselves what an
unknown means for the one field they need.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pulumi_policy.proxy import UnknownValueError, _is_unknown

# The proxy classes expose their target under this key (pulumi_policy.proxy); the policy
# servicer passes proxies, the testing helper and stack resources may pass plain values.
_TARGET = "__target"


def plain(value: Any) -> Any:
    """``value`` as plain dicts and lists; unknown values stay their sentinel strings."""
    if isinstance(value, Mapping):
        target = value[_TARGET] if type(value).__name__ == "_DictProxy" else value
        return {k: plain(v) for k, v in target.items()}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        target = value[_TARGET] if type(value).__name__ == "_ListProxy" else value
        return [plain(v) for v in target]
    return value


def is_unknown(value: Any) -> bool:
    return _is_unknown(value)


def get_path(props: Mapping[str, Any], *path: str | int) -> Any:
    """The value at ``path`` (keys and list indexes), None where it is absent; an unknown
    value part-way returns that unknown sentinel."""
    value: Any = props
    for step in path:
        if is_unknown(value):
            return value
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


def unknown_error(path: Sequence[str | int], sentinel: str) -> UnknownValueError:
    """The SDK's own unknown-value error, raised deliberately after a rule has reported all
    it could decide: the servicer turns it into an advisory "can't be known during preview"."""
    return UnknownValueError(sentinel, [str(p) for p in path])

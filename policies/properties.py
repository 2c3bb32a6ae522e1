"""Reading resource properties inside a policy without tripping over unknown values.

The Python CrossGuard SDK hands policies a proxy that raises ``UnknownValueError`` on reading
any unknown value, and the servicer turns that into an advisory "can't be known during
preview" for the whole policy — so a mandatory rule that merely walks past an unknown field it
does not care about is silently downgraded (pulumi-policy#258). Rules here read ``plain(props)``
instead: the same values with unknowns kept as sentinels, and decide for themselves what an
unknown means for the one field they need.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pulumi_policy.proxy import (
    UnknownValueError,
    _DictProxy,
    _ListProxy,
    unknown_checking_proxy,
)

# The proxy classes expose their target under this key (pulumi_policy.proxy); the policy
# servicer passes proxies, the testing helper and stack resources may pass plain values.
_TARGET = "__target"
_SCALARS = (str, int, float, bool, type(None))


class DeserializedProps(Mapping[str, Any]):
    """Properties as the pack's servicer (``serving.analyzer_servicer``) hands them to policies.

    To a policy reading it as a mapping, it is the SDK's unknown-checking proxy (built on
    first read, as that copies every value); ``plain()`` returns the deserialized values
    themselves, shared by every policy of the request — so policies must not modify them.
    """

    __slots__ = ("_proxy", "raw")

    def __init__(self, values: dict[str, Any]) -> None:
        self.raw = values
        self._proxy: Mapping[str, Any] | None = None

    def _checked(self) -> Mapping[str, Any]:
        if self._proxy is None:
            self._proxy = unknown_checking_proxy(self.raw)
        return self._proxy

    def __getitem__(self, key: str) -> Any:
        return self._checked()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.raw)

    def __len__(self) -> int:
        return len(self.raw)


def plain(value: Any) -> Any:
    """``value`` as plain dicts and lists; unknown values stay their sentinel strings."""
    # Exact type checks first: this runs over every property of every resource, and the
    # abstract-class checks below are several times slower.
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is DeserializedProps:
        return value.raw
    if kind is _DictProxy:
        value, kind = value[_TARGET], dict
    elif kind is _ListProxy:
        value, kind = value[_TARGET], list
    if kind is dict or isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if kind is list or (isinstance(value, Sequence) and not isinstance(value, str | bytes)):
        return [plain(v) for v in value]
    return value


def unknown_error(path: Sequence[str | int], sentinel: str) -> UnknownValueError:
    """The SDK's own unknown-value error, raised deliberately after a rule has reported all
    it could decide: the servicer turns it into an advisory "can't be known during preview"."""
    return UnknownValueError(sentinel, [str(p) for p in path])

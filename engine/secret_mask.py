"""Secret values kept out of what gpufleet reports about a stack.

A policy reads a resource's secret properties in plain text (as under the real engine) and may
quote one in its message: "a2-megagpu-16g has 16 x A100" when the machine type was an
``Output.secret``; ``gpufleet cost`` prices the machine it reads and names it. Each secret
value of the resources (inputs, state, their providers' settings), as text, becomes
``[secret]`` wherever it appears in a check's findings or a cost report, as the Pulumi CLI
masks secrets in what it prints.

gpufleet's readers change a value before they show it: machine types in lower case, a URL's
last segment (GCP's ``.../machineTypes/a2-ultragpu-8g``), ``_`` spelled ``-``. So a secret is
found whatever its case, by its last segment too, with ``-`` and ``_`` alike or left out.

A short secret (under four characters, or a number or boolean) is masked only as a whole word
or number: ``12`` masks "12 instances" but not "$112.00" or "12.5". A one-character secret is
not masked: replacing every such character would garble messages and such a value tells
little; a one-digit secret number of a resource (a secret max size of 7) is, as a whole number,
in what is said of that resource (its findings, its cost line's instances).

Mask text before it is escaped for a format (markdown, workflow commands): escaping changes
the secret's spelling, and a mask applied after it no longer finds it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from gpufleet.engine.analyzer_resources import AnalyzerResource
from gpufleet.engine.wire import SECRET_SIG, SIG_KEY

MASK = "[secret]"
_SHORTEST = 2
# Shorter secrets are masked as whole words only: anywhere, "on" would mask "region".
_ANYWHERE = 4
_SEPARATORS = "-_"
_SEPARATOR = "[-_]?"
# A whole word: no letter or digit either side (``_`` and punctuation separate).
_WORD_BEFORE, _WORD_AFTER = r"(?<![^\W_])", r"(?![^\W_])"
# A whole number: not part of "1,234.50" either.
_NUMBER_BEFORE, _NUMBER_AFTER = r"(?<!\d[.,])", r"(?![.,]\d)"


@dataclass(frozen=True)
class _Secret:
    pattern: str
    key: str  # what it is in _key(text) form: a quick test that text may hold it
    length: int


class SecretMask:
    def __init__(self, resources: Iterable[AnalyzerResource]) -> None:
        found: dict[str, _Secret] = {}
        # A resource's own one-digit secrets (a secret max size of 7): masked only in what is
        # said of that resource, where a lone digit is likely to be it.
        self._digits: dict[str, dict[str, _Secret]] = {}
        for resource in resources:
            sources: list[Any] = [resource.inputs, resource.state]
            if resource.provider is not None:
                sources.append(resource.provider.properties)
            for source in sources:
                for text, number in _secret_texts(source, inside_secret=False):
                    for variant in _variants(text):
                        secret = _secret(variant, number=number)
                        if secret is not None:
                            found.setdefault(secret.pattern, secret)
                        elif number and variant.isdigit():
                            digit = _digit(variant)
                            self._digits.setdefault(resource.urn, {})[digit.pattern] = digit
        # Longest first: a secret that contains another is masked whole.
        self._secrets = sorted(found.values(), key=lambda s: s.length, reverse=True)
        self._compiled: dict[tuple[str, ...], re.Pattern[str]] = {}

    def __call__(self, text: str, urn: str | None = None) -> str:
        """``text`` masked; ``urn``: the resource it is said of (its one-digit secrets too)."""
        own = self._digits.get(urn or "", {})
        secrets = [*self._secrets, *own.values()] if own else self._secrets
        if not secrets or not text:
            return text
        key = _key(text)
        patterns = tuple(s.pattern for s in secrets if s.key in key)
        if not patterns:
            return text
        compiled = self._compiled.get(patterns)
        if compiled is None:
            # One pass: a mask already written is never read again as a secret.
            compiled = re.compile("|".join(patterns), re.IGNORECASE)
            self._compiled[patterns] = compiled
        return compiled.sub(MASK, text)

    def within(self, data: Any, keep: Collection[str] = ()) -> Any:
        """JSON-like ``data`` with every string value masked, except under the keys ``keep``
        (values from a fixed vocabulary a schema holds to); keys are left as they are."""
        if isinstance(data, str):
            return self(data)
        if isinstance(data, dict):
            return {
                k: v if k in keep and isinstance(v, str) else self.within(v, keep)
                for k, v in data.items()
            }
        if isinstance(data, list | tuple):
            return [self.within(v, keep) for v in data]
        return data


def _key(text: str) -> str:
    """``text`` as compared: case folded, without separators."""
    folded = text.casefold()
    for separator in _SEPARATORS:
        folded = folded.replace(separator, "")
    return folded


def _variants(text: str) -> set[str]:
    """The secret as gpufleet's readers may show it: whole, and its URL's last segment."""
    whole = text.strip()
    return {whole, whole.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]}


def _secret(text: str, *, number: bool) -> _Secret | None:
    key = _key(text)
    if len(text) < _SHORTEST or not key:
        return None
    pattern = "".join(_SEPARATOR if c in _SEPARATORS else re.escape(c) for c in text)
    if number:
        return _number(pattern, key, len(text))
    if len(text) < _ANYWHERE:
        pattern = f"{_WORD_BEFORE}{pattern}{_WORD_AFTER}"
    return _Secret(f"(?:{pattern})", key, len(text))


def _digit(text: str) -> _Secret:
    """A one-digit secret number, as a whole number."""
    return _number(text, text, 1)


def _number(pattern: str, key: str, length: int) -> _Secret:
    whole = f"{_WORD_BEFORE}{_NUMBER_BEFORE}{pattern}{_NUMBER_AFTER}{_WORD_AFTER}"
    return _Secret(f"(?:{whole})", key, length)


def _secret_texts(value: Any, *, inside_secret: bool) -> Iterator[tuple[str, bool]]:
    """The leaves of ``value`` under a secret marker, as text a message could quote, and
    whether each is a number or boolean (masked as a whole word only)."""
    stack: list[tuple[Any, bool]] = [(value, inside_secret)]
    while stack:
        item, secret = stack.pop()
        if isinstance(item, dict):
            if item.get(SIG_KEY) == SECRET_SIG:
                stack.append((item.get("value"), True))
                continue
            stack.extend((v, secret) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, secret) for v in item)
        elif secret and item is not None:
            if isinstance(item, str):
                yield item, False
            else:
                yield json.dumps(item), True  # numbers and booleans as a message would write them
                if isinstance(item, float) and item.is_integer():
                    yield str(int(item)), True

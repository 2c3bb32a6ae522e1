"""Secret values kept out of what gpufleet reports about a stack.

A policy reads a resource's secret properties in plain text (as under the real engine) and may
quote one in its message: "a2-megagpu-16g has 16 x A100" when the machine type was an
``Output.secret``; ``gpufleet cost`` prices the machine it reads and names it. Each secret
value of the resources (inputs, state, their providers' settings), as text, becomes
``[secret]`` wherever it appears in a check's findings or a cost report's rendering, as the
Pulumi CLI masks secrets in what it prints.

A one-character secret is not masked: replacing every such character would garble messages
and such a value tells little.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from gpufleet.engine.analyzer_resources import AnalyzerResource
from gpufleet.engine.wire import SECRET_SIG, SIG_KEY

MASK = "[secret]"
_SHORTEST = 2


class SecretMask:
    def __init__(self, resources: Iterable[AnalyzerResource]) -> None:
        texts: set[str] = set()
        for resource in resources:
            sources: list[Any] = [resource.inputs, resource.state]
            if resource.provider is not None:
                sources.append(resource.provider.properties)
            for source in sources:
                texts.update(_secret_texts(source, inside_secret=False))
        # Longest first: a secret that contains another is masked whole.
        self._texts = sorted((t for t in texts if len(t) >= _SHORTEST), key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self._texts:
            if secret in text:
                text = text.replace(secret, MASK)
        return text


def _secret_texts(value: Any, *, inside_secret: bool) -> Iterator[str]:
    """The leaves of ``value`` under a secret marker, as text a message could quote."""
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
                yield item
            else:
                yield json.dumps(item)  # numbers and booleans as a message would write them
                if isinstance(item, float) and item.is_integer():
                    yield str(int(item))

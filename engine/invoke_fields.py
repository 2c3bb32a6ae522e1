"""What an invoke's result holds, read from the provider SDK's source.

Offline, no provider answers an invoke, so what a program computes from one is not known: a
machine type read from an SSM parameter or a data source must not pass for the value the mocks
would make up. The offline engine answers an invoke it does not model with every text field
of the SDK's result type set to ``INVOKE_PLACEHOLDER``, which the footprint readers report as
undetermined. Only text fields: the SDK's result classes type-check their fields, and a
number or a list is left unset, as before.

The fields come from the SDK source (``class <Name>Result`` and its ``__init__`` checks), read
as text rather than imported: importing a provider module costs seconds in gpufleet's process.
"""

from __future__ import annotations

import importlib.util
import re
from functools import cache
from pathlib import Path

from gpufleet.clouds import cloud_of_type, sdk_module
from gpufleet.engine.wire import INVOKE_PLACEHOLDER

_TEXT_FIELD = re.compile(r"if (\w+) and not isinstance\(\1, str\):")


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


@cache
def _source(token: str) -> str | None:
    """The SDK module that defines the invoke ``token``, as text; None when not found."""
    parts = token.split(":")
    cloud = cloud_of_type(token)
    if len(parts) != 3 or cloud is None:
        return None
    spec = importlib.util.find_spec(sdk_module(cloud))
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent
    module = parts[1].split("/")[0]
    if module != "index":
        folder = folder / module.replace("-", "_")
    path = folder / f"{_snake(parts[2])}.py"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


@cache
def text_fields(token: str) -> tuple[str, ...]:
    """The wire names of the text fields an invoke returns (camelCase, as the engine's)."""
    source = _source(token)
    if source is None:
        return ()
    start = source.find("Result:\n")
    end = source.find("\nclass ", start + 1)
    body = source[start : end if end > 0 else len(source)]
    return tuple(_camel(name) for name in _TEXT_FIELD.findall(body))


def placeholder_result(token: str, args: dict[str, object]) -> dict[str, object]:
    """An invoke's answer offline: what it was asked (echoed, as many results echo their
    arguments) and every other text field marked as not known."""
    result: dict[str, object] = {name: INVOKE_PLACEHOLDER for name in text_fields(token)}
    result.update({k: v for k, v in args.items() if k in result})
    return result

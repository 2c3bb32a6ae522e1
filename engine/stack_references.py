"""The outputs of stacks a program reads with ``pulumi.StackReference``, from files the user
names (``--stack-reference NAME=FILE``): the engine reads them from the backend, which offline
there is none of.

A file is either

- a ``pulumi stack export`` (version 3 or 4): the outputs of its ``pulumi:pulumi:Stack``
  resource; a secret stays secret (encrypted for the stack's secrets provider, it reads as
  ``SECRET_PLACEHOLDER``, as a ``secure:`` config value does), or
- the JSON object ``pulumi stack output --json --show-secrets`` prints, output name to value;
  ``"[secret]"`` (what it prints for a secret without ``--show-secrets``) is a secret that
  reads as ``SECRET_PLACEHOLDER``. Which of its other values were secrets it does not say.

What a ``StackReference`` reads (``capture.RealisticMocks``): ``outputs`` in engine form
(secrets marked) and ``secretOutputNames``, the outputs holding a secret, as the engine lists
them. A file that cannot be read as either is one ``file:line: field: message`` problem.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gpufleet.engine.analyzer_resources import _from_state  # the checkpoint form, read once
from gpufleet.engine.capture import STACK_TYPE
from gpufleet.engine.wire import SECRET_PLACEHOLDER, SECRET_SHOWN, contains_secret, secret
from gpufleet.json_input import JsonInputError, problem_at, read_json_file

WHAT = "stack outputs (`pulumi stack output --json --show-secrets`) or a stack export"


class StackReferenceError(Exception):
    """A stack reference file that cannot be read: one line, ``file:line: field: message``."""


def read_stack_references(given: Sequence[tuple[str, Path]]) -> dict[str, dict[str, Any]]:
    """What each named stack's ``StackReference`` reads, from its file, in the order given."""
    return {name: read_stack_outputs(path) for name, path in given}


def read_stack_outputs(path: Path) -> dict[str, Any]:
    """``{"outputs": ..., "secretOutputNames": [...]}`` of the stack ``path`` holds;
    StackReferenceError if it holds none."""
    try:
        data, text = read_json_file(path, what=WHAT)
    except JsonInputError as exc:
        raise StackReferenceError(str(exc)) from None
    source = str(path)
    if isinstance(data, dict) and "deployment" in data and "version" in data:
        outputs = _export_outputs(data, source, text)
    elif isinstance(data, dict):
        outputs = {key: _shown(value) for key, value in data.items()}
    else:
        raise StackReferenceError(
            problem_at(source, text, (), f"expected a JSON object: {WHAT}, not {_json_kind(data)}")
        )
    names = [key for key, value in outputs.items() if contains_secret(value)]
    return {"outputs": outputs, "secretOutputNames": names}


def _shown(value: Any) -> Any:
    """A value ``pulumi stack output --json`` printed: ``[secret]`` is a secret not shown."""
    return secret(SECRET_PLACEHOLDER) if value == SECRET_SHOWN else value


def _export_outputs(data: dict[str, Any], source: str, text: str) -> dict[str, Any]:
    def bad(where: Sequence[str | int], message: str) -> StackReferenceError:
        return StackReferenceError(problem_at(source, text, where, message))

    if data.get("version") not in (3, 4):
        raise bad(("version",), "not a stack export (expected version: 3 or 4)")
    deployment = data.get("deployment")
    resources = deployment.get("resources") if isinstance(deployment, dict) else None
    if resources is None and isinstance(deployment, dict):
        resources = []  # a stack never deployed: no resources, no outputs
    if not isinstance(resources, list):
        raise bad(("deployment", "resources"), "not a list (not a stack export?)")
    stacks = [
        index
        for index, r in enumerate(resources)
        if isinstance(r, dict) and r.get("type") == STACK_TYPE and r.get("delete") is not True
    ]
    if not stacks:
        raise bad(
            ("deployment", "resources"),
            f"no {STACK_TYPE} resource, so no stack outputs (an export of a whole stack has one)",
        )
    if len(stacks) > 1:
        where = ("deployment", "resources", stacks[1], "type")
        raise bad(where, f"a second {STACK_TYPE} resource: which one's outputs is not clear")
    where = ("deployment", "resources", stacks[0], "outputs")
    outputs = resources[stacks[0]].get("outputs")
    if outputs is None:
        return {}
    if not isinstance(outputs, dict):
        raise bad(where, f"expected an object, not {_json_kind(outputs)}")
    try:
        return _from_state(outputs)
    except (ValueError, TypeError):
        raise bad(where, "a secret's plaintext is not JSON text") from None
    except RecursionError:
        raise bad(where, "nested too deeply") from None


def _json_kind(value: Any) -> str:
    kinds = {list: "a list", str: "a string", bool: "true or false", type(None): "null"}
    return kinds.get(type(value), "a number")

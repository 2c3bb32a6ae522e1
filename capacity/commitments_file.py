"""The commitments file: what ``gpufleet commitments --output FILE`` writes and ``gpufleet cost``
and ``gpufleet check`` read with ``--commitments FILE``.

JSON: ``{"version": 1, "readAt": ..., "environment": ..., "commitments": [...]}``, each entry
in the shape of ``site:commitments`` (``capacity.commitments``). A file that is not one is one
line per problem, naming the file, the line and the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpufleet.capacity.commitments import HeldCommitment, describe, parse_commitments
from gpufleet.json_input import JsonInputError, problem_at, read_json_file

VERSION = 1
# A commitments file of 10,000 entries is under 4 MB.
MAX_BYTES = 16 * 1024 * 1024
_FIELDS = frozenset({"version", "readAt", "environment", "commitments"})


class CommitmentsFileError(ValueError):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def read_commitments_file(path: Path) -> list[HeldCommitment]:
    """The commitments ``path`` lists; CommitmentsFileError otherwise."""
    try:
        data, text = read_json_file(path, what="a commitments file", limit=MAX_BYTES)
    except JsonInputError as exc:
        raise CommitmentsFileError([str(exc)]) from None
    source = str(path)
    if not isinstance(data, dict):
        raise CommitmentsFileError(
            [problem_at(source, text, (), "an object with version and commitments")]
        )
    problems = [
        problem_at(source, text, (key,), "unknown field") for key in sorted(set(data) - _FIELDS)
    ]
    if data.get("version") != VERSION:
        problems.append(problem_at(source, text, ("version",), f"must be {VERSION}"))
    held, wrong = parse_commitments(data.get("commitments"))
    problems += [problem_at(source, text, ("commitments", *at), why) for at, why in wrong]
    if problems:
        raise CommitmentsFileError(problems)
    return held


def commitments_document(
    held: list[HeldCommitment], environment: str, read_at: str
) -> dict[str, Any]:
    """The file's content for ``held``, read from the account at ``read_at`` (ISO time)."""
    return {
        "version": VERSION,
        "readAt": read_at,
        "environment": environment,
        "commitments": [h.as_config() for h in held],
    }


def config_problems(config: dict[str, str], key: str, where: str) -> list[str]:
    """One line per entry of the stack config's ``key`` (JSON text) that is not a commitment,
    prefixed with ``where`` (the stack config file)."""

    text = config.get(key)
    if not text:
        return []
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return [f"{where}: {key}: not a list of commitments"]
    return [f"{where}: {describe(p, key)}" for p in parse_commitments(value)[1]]


def with_commitments(
    config: dict[str, str], key: str, extra: list[HeldCommitment]
) -> dict[str, str]:
    """``config`` (the engine's flat map) with ``extra`` added to the commitments under
    ``key``: how ``--commitments FILE`` reaches the policy pack, which reads the stack's."""
    if not extra:
        return config
    try:
        present = json.loads(config.get(key) or "[]")
    except (ValueError, RecursionError):
        present = []
    listed = present if isinstance(present, list) else []
    return {**config, key: json.dumps([*listed, *(h.as_config() for h in extra)])}

"""The commitments file: what ``gpufleet commitments --output FILE`` writes and ``gpufleet cost``
and ``gpufleet check`` read with ``--commitments FILE``.

JSON: ``{"version": 1, "readAt": ..., "environment": ..., "commitments": [...]}``, each entry
in the shape of ``site:commitments`` (``capacity.commitments``). A file that is not one is one
line per problem, naming the file, the line and the field.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from gpufleet.capacity.commitments import HeldCommitment, describe, parse_commitments
from gpufleet.json_input import JsonInputError, problem_at, read_json_file
from gpufleet.text_input import InputFileError
from gpufleet.yaml_input import LocatedDocument, read_yaml_file

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


def config_problems(
    config: dict[str, str], key: str, where: str, document: LocatedDocument | None = None
) -> list[str]:
    """One line per entry of the stack config's ``key`` (JSON text in the engine's flat map)
    that is not a commitment, prefixed with ``where`` (the stack config file) and, when the
    file is given as ``document``, the line of the field in it."""
    text = config.get(key)
    if not text:
        return []

    def line(path: tuple[str | int, ...]) -> str:
        found = document.line_of(("config", key, *path)) if document is not None else None
        return f"{where}:{found}" if found is not None else where

    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return [f"{line(())}: {key}: not a list of commitments"]
    return [f"{line(p[0])}: {describe(p, key)}" for p in parse_commitments(value)[1]]


def stack_config_problems(config: dict[str, str], key: str, config_file: Path | None) -> list[str]:
    """``config_problems`` of a stack's config map, located in its file (``config_file``,
    read again for the lines: the engine's map has none) when there is one to read."""
    where = str(config_file) if config_file is not None else "stack config"
    problems = config_problems(config, key, where)
    if problems and config_file is not None:
        with contextlib.suppress(InputFileError):
            document = read_yaml_file(config_file, what="a stack config")
            problems = config_problems(config, key, where, document)
    return problems


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

"""Read a JSON file a user hands gpufleet (a stack export, a saved cost report, a policy config)
so that no file, however made, gets past as a traceback, a hang or unbounded memory.

Only regular files are read (a FIFO or ``/dev/zero`` would block or never end), up to a size
limit; text must be UTF-8; ``NaN`` and ``Infinity`` are refused (they are not JSON, and a price
that is not a number must never reach a total); nesting too deep for the parser and integers
too long to convert are one-line problems like any other.
"""

from __future__ import annotations

import json
import math
import stat
from pathlib import Path
from typing import Any

# Stack exports of thousands of resources stay well under this; the parsed document costs a few
# times the file's size in memory.
MAX_JSON_BYTES = 256 * 1024 * 1024


class JsonInputError(Exception):
    """One line: the file, where in it when known, and what is wrong."""


def read_json_file(path: Path, *, what: str) -> tuple[Any, str]:
    """(the parsed document, its text). ``what`` names the kind of file in messages
    ("a stack export")."""
    try:
        info = path.stat()
    except OSError as exc:
        raise JsonInputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise JsonInputError(f"{path}: cannot read: not a regular file")
    if info.st_size > MAX_JSON_BYTES:
        raise JsonInputError(
            f"{path}: too large to be {what} ({info.st_size:,} bytes; the limit is "
            f"{MAX_JSON_BYTES:,})"
        )
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_JSON_BYTES + 1)
    except OSError as exc:
        raise JsonInputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_JSON_BYTES:  # grew while we read it
        raise JsonInputError(f"{path}: too large to be {what}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise JsonInputError(f"{path}:{line}: not valid JSON: not UTF-8 text") from None
    return parse_json(text, str(path), what=what), text


def parse_json(text: str, source: str, *, what: str) -> Any:
    """``text`` parsed as strict JSON; JsonInputError naming ``source`` otherwise."""
    try:
        return json.loads(text, parse_constant=_not_json, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise JsonInputError(f"{source}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    except _NotJsonError as exc:
        raise JsonInputError(f"{source}: not valid JSON: {exc} is not a finite number") from None
    except RecursionError:
        raise JsonInputError(f"{source}: not {what}: nested too deeply") from None
    except ValueError:  # an integer with more digits than Python converts
        raise JsonInputError(f"{source}: not {what}: a number too long to read") from None


class _NotJsonError(ValueError):
    pass


def _not_json(constant: str) -> Any:
    raise _NotJsonError(constant)


def _finite(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):  # 1e999 parses as infinity
        raise _NotJsonError(literal)
    return value

"""Read a JSON file a user hands gpufleet (a stack export, a saved cost report, a policy config)
so that no file, however made, gets past as a traceback, a hang or unbounded memory.

Read as ``text_input`` reads (regular files only, a size limit, UTF-8); ``NaN`` and
``Infinity`` are refused (they are not JSON, and a price that is not a number must never reach
a total); nesting too deep and integers too long to convert are one-line problems like any
other.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gpufleet.text_input import MAX_NESTING, InputFileError, read_text_file

# The largest JSON file gpufleet reads (a stack export, a saved cost report; smaller kinds pass
# their own limit): the export of a generated 250-workload stack (2,633 resources) is 13 MB.
MAX_JSON_BYTES = 64 * 1024 * 1024
# How many values a JSON file may hold, counted before parsing as an upper bound (every value
# but the first follows a ',', '[' or '{', so their count bounds the values; those inside
# strings count too): memory and time go with values, not bytes — 64 MiB of ``[1,1,...]`` is
# 32 million values and gigabytes once parsed. That 2,633-resource export counts 259,025.
MAX_JSON_VALUES = 1_000_000


class JsonInputError(InputFileError):
    """One line: the file, where in it when known, and what is wrong."""


def read_json_file(path: Path, *, what: str, limit: int | None = None) -> tuple[Any, str]:
    """(the parsed document, its text). ``what`` names the kind of file in messages
    ("a stack export"); ``limit`` is its size limit in bytes (a kind of file that is small in
    practice has a smaller one; ``MAX_JSON_BYTES`` otherwise)."""
    try:
        text = read_text_file(path, what=what, limit=MAX_JSON_BYTES if limit is None else limit)
    except InputFileError as exc:
        raise JsonInputError.of(exc) from None
    except MemoryError:
        raise JsonInputError(str(path), f"too large to read as {what}: out of memory") from None
    return parse_json(text, str(path), what=what), text


def parse_json(text: str, source: str, *, what: str) -> Any:
    """``text`` parsed as strict JSON, nested at most ``MAX_NESTING`` deep; JsonInputError
    naming ``source`` otherwise."""
    values = text.count(",") + text.count("[") + text.count("{") + 1
    if values > MAX_JSON_VALUES:
        raise JsonInputError(
            source,
            f"too many values to be {what} (up to {values:,}; the limit is {MAX_JSON_VALUES:,})",
            field="json",
        )
    try:
        data = json.loads(text, parse_constant=_not_json, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise JsonInputError(
            source, f"not valid JSON: {exc.msg}", line=exc.lineno, field="json"
        ) from None
    except _NotJsonError as exc:
        raise JsonInputError(
            source, f"not valid JSON: {exc} is not a finite number", field="json"
        ) from None
    except RecursionError:
        raise JsonInputError(source, f"not {what}: nested too deeply", field="json") from None
    except MemoryError:
        raise JsonInputError(
            source, f"too large to read as {what}: out of memory", field="json"
        ) from None
    except ValueError:  # an integer with more digits than Python converts
        raise JsonInputError(
            source, f"not {what}: a number too long to read", field="json"
        ) from None
    if _depth_over(data, MAX_NESTING):
        raise JsonInputError(
            source, f"not {what}: nested more than {MAX_NESTING} levels deep", field="json"
        )
    return data


def _depth_over(data: Any, limit: int) -> bool:
    """Deeper than ``limit``? Walked without recursion: what reads the document next may
    recurse, and must not meet a depth that breaks it."""
    if not isinstance(data, dict | list):
        return False
    # Containers only: a pair per scalar would cost more than the document itself.
    pending: list[tuple[dict[Any, Any] | list[Any], int]] = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        children = value.values() if isinstance(value, dict) else value
        for child in children:
            if isinstance(child, dict | list):
                if depth >= limit:
                    return True
                pending.append((child, depth + 1))
    return False


class _NotJsonError(ValueError):
    pass


def _not_json(constant: str) -> Any:
    raise _NotJsonError(constant)


def _finite(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):  # 1e999 parses as infinity
        raise _NotJsonError(literal)
    return value


def problem_at(source: str, text: str, path: Sequence[str | int], message: str) -> str:
    """``source:line: field: message`` for the value at ``path`` (keys and list indexes) of the
    JSON ``text``; the line of the deepest part of the path that exists."""
    field = "".join(
        f"[{part}]" if isinstance(part, int) else (f".{part}" if i else str(part))
        for i, part in enumerate(path)
    )
    return f"{source}:{line_of(text, path)}: {field or 'json'}: {message}"


def line_of(text: str, path: Sequence[str | int]) -> int:
    """The line (1-based) where the value at ``path`` starts in the JSON ``text`` (for a key,
    the line of the key). Walks the text with the standard library's scanner, skipping the
    values off the path whole: linear in the text, no recursion."""
    decoder = json.JSONDecoder()
    position = _skip_space(text, 0)
    found = position
    for part in path:
        if position >= len(text):
            break
        opening = text[position]
        position = _skip_space(text, position + 1)
        index = 0
        located = False
        while position < len(text) and text[position] not in "]}":
            key_start = position
            if opening == "{":
                if text[position] != '"':
                    return _line(text, found)
                try:
                    key, position = decoder.raw_decode(text, position)
                except ValueError:
                    return _line(text, found)
                position = _skip_space(text, _skip_space(text, position) + 1)  # past ':'
                if key == part:
                    found, located = key_start, True
                    break
            elif opening == "[":
                if index == part:
                    found, located = position, True
                    break
                index += 1
            else:
                return _line(text, found)
            try:
                _, position = decoder.raw_decode(text, position)
            except ValueError:
                return _line(text, found)
            position = _skip_space(text, position)
            if position < len(text) and text[position] == ",":
                position = _skip_space(text, position + 1)
        if not located:
            break
    return _line(text, found)


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def _line(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def top_level_lines(text: str) -> dict[str, int]:
    """The line of each key of the JSON object ``text`` (its first occurrence), in one pass:
    a file with many problems is not rescanned from its start for each (``line_of`` per key
    would be quadratic). Empty when ``text`` is not an object."""
    decoder = json.JSONDecoder()
    lines: dict[str, int] = {}
    position = _skip_space(text, 0)
    if text[position : position + 1] != "{":
        return lines
    position = _skip_space(text, position + 1)
    counted, line = 0, 1
    while position < len(text) and text[position] == '"':
        line += text.count("\n", counted, position)
        counted = position
        try:
            key, position = decoder.raw_decode(text, position)
            position = _skip_space(text, _skip_space(text, position) + 1)  # past ':'
            _, position = decoder.raw_decode(text, position)
        except ValueError:
            break
        lines.setdefault(key, line)
        position = _skip_space(text, position)
        if position < len(text) and text[position] == ",":
            position = _skip_space(text, position + 1)
    return lines

"""Read a text file a user hands gpufleet (a spec, a stack config, a policy config, a baseline, an
export, a catalog): only a regular file (a FIFO or ``/dev/zero`` would block or never end), up to
a size limit, UTF-8 (a byte-order mark allowed) — anything else one ``InputFileError`` naming the
file and the line, never a traceback or unbounded memory."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Self

BOM = "\ufeff"
# How deep a YAML or JSON document may nest: no spec, config or export comes near it, and code
# that reads documents recursively stays far from Python's recursion limit.
MAX_NESTING = 100
# How many problems are printed for bad input: the first ones, then one line counting the rest
# (a file of 100,000 unknown keys is not 100,000 lines to read).
MAX_PROBLEMS_SHOWN = 100
# How much of one problem's line is printed: a problem quoting a value (a 15 MB name, a header
# of a million columns) is not printed whole.
MAX_PROBLEM_CHARS = 1_000


# What makes a file name or a field key unsafe to print as it is in a problem line: a ":"
# that would split ``file:line: field:`` elsewhere, white space (a newline would start a forged
# line), a quote or backslash (a quoted name's own characters). These, an unprintable character
# or nothing at all, and the name is quoted.
_UNSAFE_IN_NAME = re.compile(r"[\s:\"'\\]")
# In a key of a field path, also what joins the path (``workloads[0].tags``).
_UNSAFE_IN_KEY = re.compile(r"[\s:\"'\\.\[\]]")


def quoted_name(name: str) -> str:
    """``name`` as it is when safe, else in double quotes with JSON's escapes (``"a:b"``,
    ``"x\\ny"``): a file name can never read as another part of a line."""
    return _quoted(name, _UNSAFE_IN_NAME)


def quoted_key(key: object) -> str:
    """A key in a field path (``tags."team: a"``), quoted as ``quoted_name`` quotes; a key
    that is not a string (YAML's ``1.5:``, ``~:``, ``true:``) as YAML writes it, quoted."""
    if not isinstance(key, str):
        text = "null" if key is None else str(key).lower() if isinstance(key, bool) else str(key)
        return json.dumps(text)
    return _quoted(key, _UNSAFE_IN_KEY)


def _quoted(text: str, unsafe: re.Pattern[str]) -> str:
    if text and text.isprintable() and not unsafe.search(text):
        return text
    return json.dumps(text)


def problem_line(file: str, line: int, field: str, message: str) -> str:
    """``file:line: field: message``, the one shape of a problem in an input file: the file
    name quoted when it is not plain (``quoted_name``), the message on one line."""
    message = " ".join(message.split())
    return f"{quoted_name(file)}:{line}: {field}: {message}"


class InputFileError(Exception):
    """One line: ``file:line: field: message`` (``problem_line``). A problem with the whole
    file (it cannot be read, it is too large, not UTF-8) is at line 1 (or the first bad line),
    field ``file``."""

    def __init__(self, file: str, message: str, *, line: int = 1, field: str = "file") -> None:
        # One line, whatever a parser's message holds (PyYAML's span several).
        message = " ".join(message.split())
        self.file = file
        self.line = line
        self.field = field
        self.message = message
        super().__init__(problem_line(file, line, field, message))

    @classmethod
    def of(cls, problem: InputFileError) -> Self:
        """The same problem as this more specific kind (a stack file's, a JSON file's)."""
        return cls(problem.file, problem.message, line=problem.line, field=problem.field)


def shown_problems(lines: list[str]) -> list[str]:
    """The first ``MAX_PROBLEMS_SHOWN`` of ``lines``, each cut at ``MAX_PROBLEM_CHARS``, and a
    line saying how many more there are."""
    shown = [_shortened(line) for line in lines[:MAX_PROBLEMS_SHOWN]]
    if len(lines) <= MAX_PROBLEMS_SHOWN:
        return shown
    return [*shown, f"... and {len(lines) - MAX_PROBLEMS_SHOWN:,} more problems"]


def _shortened(line: str) -> str:
    if len(line) <= MAX_PROBLEM_CHARS:
        return line
    return f"{line[:MAX_PROBLEM_CHARS]}... ({len(line):,} characters)"


def read_text_file(path: Path, *, what: str, limit: int, keep_bom: bool = False) -> str:
    """The text of ``path``; ``what`` names the kind of file in messages ("a workload spec").
    A leading byte-order mark is dropped, unless ``keep_bom`` (a file written back keeps it)."""
    try:
        # Opened without waiting and checked as opened: a FIFO (or a file swapped for one after
        # a check by name) would block the read forever.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise InputFileError(str(path), f"cannot read: {exc.strerror or exc}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise InputFileError(str(path), "cannot read: not a regular file")
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > limit:
            raise InputFileError(
                str(path),
                f"too large to be {what} ({info.st_size:,} bytes; the limit is {limit:,})",
            )
        try:
            raw = handle.read(limit + 1)
        except OSError as exc:
            raise InputFileError(str(path), f"cannot read: {exc.strerror or exc}") from None
    if len(raw) > limit:  # grew while we read it
        raise InputFileError(str(path), f"too large to be {what} (the limit is {limit:,} bytes)")
    text = decode_utf8(raw, str(path))
    return BOM + text if keep_bom and raw.startswith(BOM.encode()) else text


def decode_utf8(raw: bytes, file: str) -> str:
    """``raw`` as text, without a leading byte-order mark; not UTF-8 names the first bad line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        # Any line break counts (a CR-only file has no LF at all).
        line = len(re.findall(rb"\r\n|\r|\n", raw[: exc.start])) + 1
        raise InputFileError(
            file, f"not UTF-8 text (byte 0x{raw[exc.start]:02x})", line=line
        ) from None
    return text.removeprefix(BOM)

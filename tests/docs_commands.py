"""Docs that run: the command samples of README.md and docs/*.md, run and compared with what
they show, or rewritten from what the commands print.

A sample is a fenced block whose info string is ``console``. In it, a line ``$ gpufleet ...``
is a command; the lines after it, up to the next ``$`` line, are what it prints (standard output
and standard error together, in the order written, as a terminal shows them). Rules:

- Every ``console`` block runs, so commands that need the Pulumi CLI, cloud credentials or the
  network go in a ``sh`` block (shown, never run). A command is ``gpufleet`` with arguments,
  run without a shell (no pipes, redirections or variables), from the repository root, with
  the ``gpufleet`` installed beside the Python running this (``.venv/bin/gpufleet``).
- A command that exits other than 0 says so at the end of its line: ``# exit 2``. No other
  comments.
- A line ``...`` stands for any number of lines (none included); keep most samples whole.
- Files: a path under ``/tmp/`` in a command (``/tmp/pack``, ``--output sarif=/tmp/f.sarif``)
  is placed in a temporary directory of the block's own (shared by its commands), which reads
  ``/tmp`` in the output again.

What is normalised, and why: trailing spaces of each line and blank lines at the end (editors
strip them); the environment is fixed so that the output does not depend on the machine, the
terminal or the day: ``COLUMNS=80`` (``--help`` wraps at the terminal's width), UTF-8 output,
unbuffered (the order a terminal shows), no ``GPUFLEET_*`` or ``GITHUB_*`` variables of the
caller (another catalog, a job summary), and ``GPUFLEET_CATALOG_MAX_AGE_DAYS`` set far ahead
(the shipped catalog's age warning would otherwise appear some day after its snapshot, as in
``tests/conftest.py``).

Usage::

    .venv/bin/python tests/docs_commands.py [FILE...]          # check; exit 1 on a difference
    .venv/bin/python tests/docs_commands.py --write [FILE...]  # rewrite the samples' output

``--write`` keeps each sample's ``...``: the lines before the first one and after the last are
taken from the top and the bottom of the real output, each stretch between two is found again
by its first line (numbers in it may change). ``tests/test_docs.py`` runs the same check.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ELLIPSIS = "..."
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
EXIT_COMMENT = re.compile(r"\s+# exit (?P<status>\d+)$")
TMP = "/tmp"
TIMEOUT_SECONDS = 300


class DocsError(Exception):
    """A sample that cannot be run or rewritten as written (not a difference in output)."""


def doc_files() -> list[Path]:
    """README.md and every page under docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@dataclass
class Command:
    line: int  # 1-based line of its ``$`` line in the file
    text: str  # what follows ``$ ``, without its exit comment
    status: int  # the exit status it shows (0 unless ``# exit N``)
    expected: list[str] = field(default_factory=list)

    def argv(self) -> list[str]:
        words = shlex.split(self.text)
        if shlex.split(self.text, comments=True) != words:
            raise DocsError(f"line {self.line}: only a trailing '# exit N' comment is allowed")
        if not words or words[0] != "gpufleet":
            raise DocsError(f"line {self.line}: a runnable sample runs gpufleet, not {words[:1]}")
        return words


@dataclass
class Block:
    path: Path
    line: int  # 1-based line of its opening fence
    first: int  # 0-based index of its first content line
    end: int  # 0-based index of its closing fence
    indent: str  # a block in a list item is indented: its lines are read without it
    commands: list[Command]

    @property
    def where(self) -> str:
        return f"{relative(self.path)}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """The ``console`` blocks of a Markdown file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, fence, info = opening["indent"], opening["fence"], opening["info"].strip()
        close = next(
            (j for j in range(i + 1, len(lines)) if lines[j].strip().startswith(fence)),
            len(lines),
        )
        if info.split(maxsplit=1)[:1] == ["console"]:
            content = [line.removeprefix(indent) for line in lines[:close]]
            commands = _commands(path, content, i + 1, close)
            found.append(Block(path, i + 1, i + 1, close, indent, commands))
        i = close + 1
    return found


def _commands(path: Path, lines: list[str], first: int, end: int) -> list[Command]:
    commands: list[Command] = []
    for index in range(first, end):
        text = lines[index]
        if text.startswith("$ "):
            command = text[2:].strip()
            status = 0
            comment = EXIT_COMMENT.search(command)
            if comment:
                status = int(comment["status"])
                command = command[: comment.start()]
            commands.append(Command(index + 1, command, status))
        elif not commands:
            if text.strip():
                raise DocsError(f"{relative(path)}:{index + 1}: a sample starts with '$ gpufleet'")
        else:
            commands[-1].expected.append(text)
    for command in commands:
        command.expected = _trimmed(command.expected)
    return commands


def _trimmed(lines: list[str]) -> list[str]:
    out = [line.rstrip() for line in lines]
    while out and not out[-1]:
        out.pop()
    return out


def environment(tmp: Path) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("GPUFLEET_", "GITHUB_", "PULUMI_", "FORCE_COLOR", "NO_COLOR"))
    }
    env.update(
        COLUMNS="80",
        LINES="24",
        TERM="dumb",
        PYTHONIOENCODING="utf-8",
        PYTHONUNBUFFERED="1",
        GPUFLEET_CATALOG_MAX_AGE_DAYS="99999",
        TMPDIR=str(tmp),
    )
    return env


def gpufleet() -> str:
    """The installed console script: beside this Python (a venv's), else the repository's."""
    beside = Path(sys.executable).parent / "gpufleet"
    return str(beside if beside.exists() else ROOT / ".venv" / "bin" / "gpufleet")


def run(command: Command, tmp: Path) -> tuple[list[str], int]:
    """What the command prints (normalised) and its exit status."""
    argv = [re.sub(r"(^|=)/tmp/", lambda m: f"{m[1]}{tmp}/", word) for word in command.argv()[1:]]
    done = subprocess.run(
        [gpufleet(), *argv],
        cwd=ROOT,
        env=environment(tmp),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )
    text = done.stdout.decode("utf-8", errors="replace").replace(str(tmp), TMP)
    return _trimmed(text.splitlines()), done.returncode


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether the output is the sample's, ``...`` lines matching any lines."""
    parts = _segments(expected)
    if len(parts) == 1:
        return expected == actual
    first, *middle, last = parts
    if actual[: len(first)] != first or len(actual) < len(first) + len(last):
        return False
    if last and actual[len(actual) - len(last) :] != last:
        return False
    at, stop = len(first), len(actual) - len(last)
    for part in middle:
        found = _find(part, actual, at, stop, lambda a, b: a == b)
        if found is None:
            return False
        at = found + len(part)
    return True


def refit(command: Command, actual: list[str], where: str) -> list[str]:
    """The sample's new output: the real one, shortened where the sample has ``...``."""
    if matches(command.expected, actual):
        return command.expected
    parts = _segments(command.expected)
    if len(parts) == 1:
        return actual
    first, *middle, last = parts
    head, tail = actual[: len(first)], actual[len(actual) - len(last) :] if last else []
    stop = len(actual) - len(tail)
    out, at = [*head], len(head)
    for part in middle:
        found = _find(part[:1], actual, at, stop, lambda a, b: _masked(a) == _masked(b))
        if found is None or found + len(part) > stop:
            raise DocsError(
                f"{where}: the lines after a '...' of `{command.text}` "
                f"({part[0]!r}) are no longer printed: edit the sample by hand"
            )
        out += [ELLIPSIS, *actual[found : found + len(part)]]
        at = found + len(part)
    if len(head) + len(tail) > len(actual) or at > stop:
        raise DocsError(f"{where}: `{command.text}` prints too little to shorten as the sample")
    return [*out, ELLIPSIS, *tail] if last else [*out, ELLIPSIS]


def _segments(expected: list[str]) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    for line in expected:
        if line.strip() == ELLIPSIS:
            parts.append([])
        else:
            parts[-1].append(line)
    return parts


def _find(
    part: list[str], actual: list[str], start: int, stop: int, same: Callable[[str, str], bool]
) -> int | None:
    for at in range(start, stop - len(part) + 1):
        if all(same(a, b) for a, b in zip(actual[at : at + len(part)], part, strict=True)):
            return at
    return None


def _masked(line: str) -> str:
    return re.sub(r"\d[\d,.]*", "0", line)


def check(block: Block) -> list[str]:
    """The differences between a sample and what its commands print, each with a diff."""
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="gpufleet-docs-") as tmp:
        for command in block.commands:
            actual, status = run(command, Path(tmp))
            where = f"{relative(block.path)}:{command.line}"
            if status != command.status:
                problems.append(
                    f"{where}: `{command.text}` exited {status}, the sample says {command.status}"
                )
            if not matches(command.expected, actual):
                diff = difflib.unified_diff(
                    command.expected, actual, "the sample", "the output", lineterm="", n=2
                )
                problems.append(f"{where}: `{command.text}` prints otherwise:\n" + "\n".join(diff))
    return problems


def write(path: Path) -> bool:
    """Rewrite the file's samples from real output; whether anything changed."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    for block in reversed(blocks(path)):
        new: list[str] = []
        with tempfile.TemporaryDirectory(prefix="gpufleet-docs-") as tmp:
            for command in block.commands:
                actual, status = run(command, Path(tmp))
                where = f"{relative(block.path)}:{command.line}"
                comment = f"  # exit {status}" if status else ""
                new += [f"$ {command.text}{comment}", *refit(command, actual, where)]
        lines[block.first : block.end] = [f"{block.indent}{line}" if line else "" for line in new]
    updated = "\n".join(lines) + ("\n" if text.endswith("\n") else "")
    if updated == text:
        return False
    path.write_text(updated, encoding="utf-8")
    return True


def all_blocks(paths: list[Path] | None = None) -> Iterator[Block]:
    for path in paths or doc_files():
        yield from blocks(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check or rewrite the docs' command samples.")
    parser.add_argument("--write", action="store_true", help="rewrite the samples' output")
    parser.add_argument("files", nargs="*", type=Path, help="default: README.md and docs/")
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.files] or doc_files()
    try:
        if args.write:
            for path in paths:
                if write(path):
                    print(f"{relative(path)}: samples rewritten")
            return 0
        problems = [p for block in all_blocks(paths) for p in check(block)]
    except DocsError as exc:
        print(f"docs_commands: {exc}", file=sys.stderr)
        return 2
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

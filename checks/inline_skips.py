"""Inline suppressions: a reviewed comment in the program acknowledging one resource's finding,
as Checkov's skip comments do::

    # gpufleet:skip=gpu-size-undetermined: the pods' GPUs are the gke pool's, read there
    k8s.apps.v1.Deployment("inference", ...)

A comment ``gpufleet:skip=<policy>[,<policy>...] <reason>`` (the reason after white space
or a colon, at least 10 characters, as the policy config's suppressions ask) applies to the
resources the statement it is in, or the comment lines right above, registers — the
statement holding the line the engine records as the resource's source position — and to
their children (a component acknowledged covers what it builds). The finding is listed as
suppressed, with the reason and where the comment is, in every report format; it no longer
fails the check. A skip without a reason, or one not written so, suppresses nothing and says
so on stderr.

The comments are read from the files as they were before the program ran (``snapshot``: the
Python files of the program's repository, within limits): the program is untrusted and could
write a comment into its own source while it runs. Only
``gpufleet check`` reads them (the pack under the Pulumi CLI sees no source): for a suppression
the CLI honours too, use the policy config's ``suppressions``.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

from gpufleet.checks.check_run import CheckReport, Finding, SourceLocation, SourceRoot, Suppressed
from gpufleet.engine.analyzer_resources import AnalyzerResource
from gpufleet.text_input import InputFileError, read_text_file

# ``gpufleet:skip=<policy>[,<policy>...] <reason>``, the reason after white space or a colon
# (Checkov's ``checkov:skip=<id>:<reason>`` habit).
_POLICY = r"[a-z0-9][a-z0-9-]*"
SKIP = re.compile(rf"gpufleet:skip=({_POLICY}(?:\s*,\s*{_POLICY})*)(?:\s*:\s*|\s+|$)(.*)$")
SKIP_MARK = "gpufleet:skip"
MIN_REASON = 10
# What a snapshot reads at most: the program's tree, not a monorepo's history of vendored code.
MAX_FILES = 5_000
MAX_FILE_BYTES = 2 * 2**20
MAX_TOTAL_BYTES = 64 * 2**20
_SKIPPED_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache"}


@dataclass(frozen=True)
class Skip:
    policies: frozenset[str]
    reason: str
    path: str  # relative to the report's root
    line: int


class SourceSnapshot:
    """The Python files under a root as they were when taken, for reading skips later."""

    def __init__(self, project: Path, texts: dict[Path, str]) -> None:
        self.project = project
        self._texts = texts
        self._statements: dict[Path, list[tuple[int, int]]] = {}
        self._comments: dict[Path, dict[int, str]] = {}

    def comments(self, path: Path, start: int, end: int) -> list[tuple[int, str]]:
        """(line, text) of the comments on lines ``start``..``end`` of a file taken."""
        resolved = path.resolve()
        text = self._texts.get(resolved)
        if text is None:
            return []
        if resolved not in self._comments:
            self._comments[resolved] = _comments(text)
        return sorted((n, c) for n, c in self._comments[resolved].items() if start <= n <= end)

    def statement_lines(self, path: Path, line: int) -> tuple[int, int] | None:
        """The lines of the innermost statement holding ``line``, with the comment lines right
        above it; None when the file was not in the snapshot or does not parse."""
        resolved = path.resolve()
        text = self._texts.get(resolved)
        if text is None:
            return None
        if resolved not in self._statements:
            self._statements[resolved] = _statements(text)
        spans = [(a, b) for a, b in self._statements[resolved] if a <= line <= b]
        if not spans:
            return None
        start, end = min(spans, key=lambda s: s[1] - s[0])
        lines = text.splitlines()
        while start > 1 and lines[start - 2].lstrip().startswith("#"):
            start -= 1
        return start, end


def snapshot(root: Path, project: Path) -> SourceSnapshot:
    """Every ``*.py`` file under ``root`` (within limits; hidden folders and virtualenvs left
    out), read now; source paths relative to ``project`` (an export's) are found from it."""
    texts: dict[Path, str] = {}
    total = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in _SKIPPED_DIRS
            and not d.startswith(".")
            and not (Path(folder) / d / "pyvenv.cfg").exists()
        )
        for name in sorted(files):
            if not name.endswith(".py") or len(texts) >= MAX_FILES:
                continue
            path = Path(folder) / name
            try:
                text = read_text_file(path, what="a program file", limit=MAX_FILE_BYTES)
            except InputFileError:
                continue
            total += len(text)
            if total > MAX_TOTAL_BYTES:
                return SourceSnapshot(project, texts)
            texts[path.resolve()] = text
    return SourceSnapshot(project, texts)


def _statements(text: str) -> list[tuple[int, int]]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return [
        (node.lineno, node.end_lineno or node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.stmt)
    ]


def _comments(text: str) -> dict[int, str]:
    """Line -> the text of the comment on it, for a whole file (what tokenizes of it)."""
    found: dict[int, str] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                found[token.start[0]] = token.string.lstrip("#").strip()
    except (tokenize.TokenError, SyntaxError):
        pass  # a file that does not parse registers nothing past its error anyway
    return found


def skips_at(
    source: SourceSnapshot, root: SourceRoot, file: str, line: int, problems: list[str]
) -> list[Skip]:
    """The skips written at the statement registering at ``file``:``line`` (a path relative to
    the snapshot's root, as an export's source positions are to the project, or absolute)."""
    path = Path(file)
    path = path if path.is_absolute() else source.project / path
    span = source.statement_lines(path, line)
    if span is None:
        return []
    resolved = path.resolve()
    shown = (
        resolved.relative_to(root.path).as_posix()
        if resolved.is_relative_to(root.path)
        else path.name
    )
    found = []
    for number, comment in source.comments(path, *span):
        match = SKIP.search(comment)
        if match is None:
            if SKIP_MARK in comment:
                problems.append(
                    f"{shown}:{number}: not a skip gpufleet reads (write "
                    "gpufleet:skip=<policy>[,<policy>...] <reason>): not applied"
                )
            continue
        policies = frozenset(p.strip() for p in match[1].split(",") if p.strip())
        reason = (match[2] or "").strip()
        if len(reason) < MIN_REASON:
            problems.append(
                f"{shown}:{number}: gpufleet:skip needs a reason of at least {MIN_REASON} "
                "characters after the policy: not applied"
            )
            continue
        found.append(Skip(policies, reason, shown, number))
    return found


def apply_inline_skips(
    report: CheckReport,
    resources: list[AnalyzerResource],
    source: SourceSnapshot,
    root: SourceRoot,
) -> list[str]:
    """Move the findings an inline skip acknowledges to the report's suppressed results;
    the problems with skip comments (one line each) for stderr."""
    by_urn = {r.urn: r for r in resources}
    problems: list[str] = []
    cache: dict[str, list[Skip]] = {}

    def own(resource: AnalyzerResource) -> list[Skip]:
        if resource.urn not in cache:
            where = resource.source
            cache[resource.urn] = (
                skips_at(source, root, where[0], where[1], problems) if where else []
            )
        return cache[resource.urn]

    def skip_for(finding: Finding) -> Skip | None:
        current = by_urn.get(finding.urn)
        seen: set[str] = set()
        while current is not None and current.urn not in seen:
            seen.add(current.urn)
            for skip in own(current):
                if finding.policy in skip.policies:
                    return skip
            current = by_urn.get(current.parent)
        return None

    kept: list[Finding] = []
    for finding in report.findings:
        skip = skip_for(finding) if finding.urn else None
        if skip is None:
            kept.append(finding)
            continue
        report.suppressed.append(
            Suppressed(
                finding.policy,
                finding.urn,
                f"{skip.reason} (inline at {skip.path}:{skip.line})",
                resource_type=finding.resource_type,
                resource_name=finding.resource_name,
                location=SourceLocation(skip.path, skip.line),
            )
        )
    report.findings = kept
    # One suppressed result per resource and policy, as the policy config's give.
    unique = {(s.policy, s.urn, s.reason): s for s in report.suppressed}
    report.suppressed = list(unique.values())
    return list(dict.fromkeys(problems))

"""Where a report goes: ``--output [FORMAT=]FILE``, repeatable, so one run writes every format a
CI job wants (SARIF for code scanning, JUnit for test reports, JSON for scripts, workflow
annotations on standard output) as Checkov's ``-o`` does, from one evaluation.

``--output FILE`` is the ``--format`` report, as before; ``--output sarif=FILE`` names its own
format; ``-`` is standard output. When every ``--output`` names a format and none is standard
output, standard output still gets the ``--format`` report (the table, by default), so a run in
a terminal shows its result while it writes the files. A file named like ``json=x`` is written
as ``./json=x``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

STANDARD_OUTPUT = "-"


@dataclass(frozen=True)
class ReportTarget:
    """One ``--output``: a format (None: the ``--format`` one) and a file (None: stdout)."""

    fmt: str | None
    path: Path | None


class ReportTargetType(click.ParamType):
    """``[FORMAT=]FILE`` for the given formats."""

    name = "[FORMAT=]FILE"

    def __init__(self, formats: Sequence[str]) -> None:
        self.formats = tuple(formats)

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> ReportTarget:
        if isinstance(value, ReportTarget):
            return value
        text = str(value)
        head, equals, tail = text.partition("=")
        fmt: str | None = None
        if equals and head in self.formats:
            fmt, text = head, tail
        if not text:
            self.fail(f"{value!r} names no file (use {head}=FILE, or {head}=- for stdout)", param)
        return ReportTarget(fmt, None if text == STANDARD_OUTPUT else Path(text))


def report_targets(fmt: str, targets: Sequence[ReportTarget]) -> list[ReportTarget]:
    """Every report to write, each with its format; a ``click.BadParameter`` for two reports
    on standard output or on one file."""
    if not targets:
        return [ReportTarget(fmt, None)]
    resolved = [ReportTarget(t.fmt or fmt, t.path) for t in targets]
    if all(t.fmt is not None for t in targets) and all(t.path is not None for t in targets):
        resolved.append(ReportTarget(fmt, None))
    on_stdout = [t.fmt for t in resolved if t.path is None]
    if len(on_stdout) > 1:
        raise click.BadParameter(
            f"{len(on_stdout)} reports on standard output ({', '.join(map(str, on_stdout))}): "
            "give the others a file",
            param_hint="'--output'",
        )
    seen: dict[str, str] = {}
    for target in resolved:
        if target.path is None:
            continue
        key = str(target.path.absolute())
        if key in seen:
            raise click.BadParameter(
                f"{target.path} is given for two reports ({seen[key]}, {target.fmt})",
                param_hint="'--output'",
            )
        seen[key] = str(target.fmt)
    return resolved

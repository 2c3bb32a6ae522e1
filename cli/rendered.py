"""A command's report as rendered: the text for standard output or ``--output``, the markdown
for GitHub's job summary, and what a format's size limits left out (for stderr)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Rendered:
    text: str  # the report
    summary: str | None = None  # markdown for GitHub's job summary (--format github)
    # What a format's limits left out of the report or the summary, for stderr.
    notes: list[str] = field(default_factory=list)

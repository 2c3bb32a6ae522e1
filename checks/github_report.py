"""A check report for GitHub Actions: workflow-command annotations and a job summary.

``workflow_annotations`` are ``::error`` (mandatory) / ``::warning`` (advisory) commands, with
file and line when known, shown on the pull request's diff. GitHub shows at most 10 error and
10 warning annotations of a step (and 10 notices; 50 annotations a job): past those it drops
the rest unseen, so the most severe 10 of each are written, then one ``::notice`` saying how
many were not — and the job summary lists them.

``job_summary`` is markdown for ``$GITHUB_STEP_SUMMARY``: the verdict, a table of findings,
what was suppressed and baselined. Every name and message in it comes from the program or the
pack under check and is made literal (``github_text``): a ``|`` cannot end a cell, ``__main__``
is not bold, ``<script>`` is not a tag, ``@someone`` notifies no one. GitHub refuses a step
summary over 1 MiB whole (it shows none of it), so rows that would take the summary past
``limit`` are left out, and a line says how many.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpufleet.checks.check_run import CheckReport, Finding, SourceLocation, Suppressed
from gpufleet.github_text import (
    ANNOTATIONS_PER_KIND,
    SUMMARY_LIMIT,
    command_data,
    command_property,
    lines_that_fit,
    markdown_code,
    markdown_text,
    size_of,
)


def workflow_annotations(report: CheckReport) -> list[str]:
    lines = []
    shown = {"error": 0, "warning": 0}
    if report.program_unfinished is not None:
        lines.append(
            f"::error title={command_property('gpufleet program')}::"
            + command_data(f"the program {report.program_unfinished}")
        )
        shown["error"] += 1
    # Findings come mandatory first: the errors shown are the ones that fail the check.
    for finding in report.findings:
        command = "error" if finding.level == "mandatory" else "warning"
        if shown[command] == ANNOTATIONS_PER_KIND:
            continue
        shown[command] += 1
        properties = [f"title={command_property(f'gpufleet {finding.policy}')}"]
        if finding.location is not None:
            properties.insert(0, f"line={finding.location.line}")
            properties.insert(0, f"file={command_property(finding.location.path)}")
        subject = f"{finding.resource_name}: " if finding.resource_name else ""
        lines.append(
            f"::{command} {','.join(properties)}::{command_data(subject + finding.message)}"
        )
    left_out = unannotated(report)
    if left_out:
        lines.append(
            f"::notice title={command_property('gpufleet check')}::"
            + command_data(f"{_unannotated_note(left_out)}: {_LISTED_ELSEWHERE}")
        )
    return lines


def unannotated(report: CheckReport) -> int:
    """Findings past GitHub's annotations of a step."""
    errors = len(report.mandatory) + (report.program_unfinished is not None)
    return max(errors - ANNOTATIONS_PER_KIND, 0) + max(
        len(report.advisory) - ANNOTATIONS_PER_KIND, 0
    )


def _unannotated_note(left_out: int) -> str:
    return (
        f"{left_out} finding(s) not annotated: GitHub shows {ANNOTATIONS_PER_KIND} error and "
        f"{ANNOTATIONS_PER_KIND} warning annotations per step"
    )


@dataclass(frozen=True)
class JobSummary:
    text: str
    left_out: int  # finding and suppression rows not in it: over the size limit

    @property
    def note(self) -> str | None:
        if not self.left_out:
            return None
        return (
            f"{self.left_out} row(s) left out of the job summary: GitHub takes at most "
            f"{SUMMARY_LIMIT // 1024} KiB per step (--format json lists them all)"
        )


def job_summary(report: CheckReport, *, limit: int = SUMMARY_LIMIT) -> JobSummary:
    """The summary, at most ``limit`` bytes of UTF-8 (with the newline the caller adds); empty
    when not even its heading fits."""
    head = _heading(report)
    findings = [_row(f) for f in report.findings]
    suppressed = [_suppressed_line(s) for s in report.suppressed]
    tail = []
    if report.baselined:
        tail += [f"{len(report.baselined)} finding(s) already in the baseline, not shown.", ""]
    left_out = unannotated(report)
    unannotated_line = f"{_unannotated_note(left_out)}; " if left_out else ""
    # Bytes for the rows: what the summary may take less the rest, and the lines saying what
    # was left out, should anything be.
    room = limit - size_of(head) - size_of(tail) - size_of(_TABLE_HEAD) - _LEFT_OUT_LINE
    if left_out:
        room -= size_of([unannotated_line + _LISTED_ELSEWHERE + ".", ""])
    if room < 0:
        return JobSummary("", len(findings) + len(suppressed))
    body: list[str] = []
    kept_findings = lines_that_fit(findings, room - 1)
    if findings:
        body += [*_TABLE_HEAD, *findings[:kept_findings], ""]
        room -= size_of([*findings[:kept_findings], ""])
    heading = f"Suppressed ({len(suppressed)}):"
    kept_suppressed = lines_that_fit(suppressed, room - size_of([heading, ""]))
    if kept_suppressed:
        body += [heading, *suppressed[:kept_suppressed], ""]
    left = len(findings) - kept_findings + len(suppressed) - kept_suppressed
    if left_out:
        # The table lists them all only when it has room for every finding.
        where = "the table above lists them" if kept_findings == len(findings) else None
        tail += [unannotated_line + (where or _LISTED_ELSEWHERE) + ".", ""]
    summary = JobSummary("", left)
    if summary.note is not None:
        body += [f"**{summary.note}.**", ""]
    return JobSummary("\n".join([*head, *body, *tail]), left)


# Bytes kept for the line saying how many rows were left out.
_LEFT_OUT_LINE = 200
# Where every finding is, whatever GitHub's limits left out (the longer of the two endings).
_LISTED_ELSEWHERE = "gpufleet check --format json lists them all"
_TABLE_HEAD = ["| Level | Policy | Resource | Where | Message |", "|---|---|---|---|---|"]


def _heading(report: CheckReport) -> list[str]:
    verdict = (
        f"**{len(report.mandatory)} mandatory violation(s)**: the check fails"
        if report.mandatory
        else "No mandatory violations"
    )
    if report.program_unfinished is not None:
        ending = markdown_text(report.program_unfinished)
        verdict = (
            f"**The program {ending}**: the check fails; "
            f"{verdict[0].lower()}{verdict[1:]} in what it registered"
        )
    pack = markdown_text(f"{report.pack.name}@{report.pack.version}")
    return [
        f"### gpufleet check: stack {markdown_code(report.stack)}",
        "",
        f"{verdict}; {len(report.advisory)} advisory; {report.resource_count} resources, "
        f"{len(report.pack.policies)} policies ({pack})" + (", preview" if report.dry_run else ""),
        "",
    ]


def _where(location: SourceLocation | None) -> str:
    return markdown_code(f"{location.path}:{location.line}") if location else ""


def _row(finding: Finding) -> str:
    return (
        f"| {finding.level} | {markdown_code(finding.policy)} "
        f"| {markdown_text(finding.resource_name or 'stack')} | {_where(finding.location)} "
        f"| {markdown_text(finding.message)} |"
    )


def _suppressed_line(suppressed: Suppressed) -> str:
    name = suppressed.resource_name or suppressed.urn.rsplit("::", 1)[-1]
    where = f" ({_where(suppressed.location)})" if suppressed.location else ""
    return (
        f"- {markdown_code(suppressed.policy)} {markdown_text(name)}{where}: "
        f"{markdown_text(suppressed.reason)}"
    )

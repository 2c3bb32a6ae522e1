"""A check report for GitHub Actions: workflow-command annotations and a job summary.

``workflow_annotations`` are ``::error`` (mandatory) / ``::warning`` (advisory) commands, with
file and line when known, shown on the pull request's diff. ``job_summary`` is markdown for
``$GITHUB_STEP_SUMMARY``: the verdict, a table of findings, what was suppressed and baselined.
"""

from __future__ import annotations

from gpufleet.checks.check_run import CheckReport, Finding
from gpufleet.github_text import command_data, command_property


def workflow_annotations(report: CheckReport) -> list[str]:
    lines = []
    if report.program_unfinished is not None:
        lines.append(
            f"::error title={command_property('gpufleet program')}::"
            + command_data(f"the program {report.program_unfinished}")
        )
    for finding in report.findings:
        command = "error" if finding.level == "mandatory" else "warning"
        properties = [f"title={command_property(f'gpufleet {finding.policy}')}"]
        if finding.location is not None:
            properties.insert(0, f"line={finding.location.line}")
            properties.insert(0, f"file={command_property(finding.location.path)}")
        subject = f"{finding.resource_name}: " if finding.resource_name else ""
        lines.append(
            f"::{command} {','.join(properties)}::{command_data(subject + finding.message)}"
        )
    return lines


def job_summary(report: CheckReport) -> str:
    verdict = (
        f"**{len(report.mandatory)} mandatory violation(s)**: the check fails"
        if report.mandatory
        else "No mandatory violations"
    )
    if report.program_unfinished is not None:
        verdict = (
            f"**The program {report.program_unfinished}**: the check fails; "
            f"{verdict[0].lower()}{verdict[1:]} in what it registered"
        )
    out = [
        f"### gpufleet check: stack `{report.stack}`",
        "",
        f"{verdict}; {len(report.advisory)} advisory; {report.resource_count} resources, "
        f"{len(report.pack.policies)} policies ({report.pack.name}@{report.pack.version})"
        + (", preview" if report.dry_run else ""),
        "",
    ]
    if report.findings:
        out += ["| Level | Policy | Resource | Message |", "|---|---|---|---|"]
        out += [_row(f) for f in report.findings]
        out.append("")
    if report.suppressed:
        out.append(f"Suppressed ({len(report.suppressed)}):")
        out += [
            f"- `{s.policy}` {s.urn.rsplit('::', 1)[-1]}: {s.reason}" for s in report.suppressed
        ]
        out.append("")
    if report.baselined:
        out.append(f"{len(report.baselined)} finding(s) already in the baseline, not shown.")
        out.append("")
    return "\n".join(out)


def _row(finding: Finding) -> str:
    where = f" ({finding.location.path}:{finding.location.line})" if finding.location else ""
    message = finding.message.replace("|", "\\|").replace("\n", " ")
    resource = finding.resource_name or "stack"
    return f"| {finding.level} | `{finding.policy}` | {resource}{where} | {message} |"

"""Rendering for ``gpufleet check``: a table for people, JSON for scripts, and the CI formats
(SARIF, JUnit XML, GitHub annotations + job summary) from ``gpufleet.checks``. JSON lists
everything; SARIF and the job summary keep within what GitHub accepts and say what they left
out (``Rendered.notes``)."""

from __future__ import annotations

import io
import json

from rich.table import Table
from rich.text import Text

# Imported with this module, before gpufleet check runs the (untrusted) program: a module
# imported after it could have been rewritten by it.
from gpufleet.checks import github_report
from gpufleet.checks.check_run import CheckReport, Finding, SourceLocation
from gpufleet.checks.junit_report import junit_xml
from gpufleet.checks.sarif import sarif_output
from gpufleet.cli import tables
from gpufleet.cli.rendered import Rendered
from gpufleet.github_text import SUMMARY_LIMIT


def render(report: CheckReport, fmt: str, *, summary_used: int | None = None) -> Rendered:
    """The report in ``fmt``; with ``github`` and ``summary_used`` (the bytes the step's
    summary file holds already), the job summary too."""
    if fmt == "json":
        return Rendered(json.dumps(report_json(report), indent=2) + "\n")
    if fmt == "sarif":
        sarif = sarif_output(report)
        return Rendered(sarif.text, notes=[f"SARIF: {sarif.note}"] if sarif.note else [])
    if fmt == "junit":
        return Rendered(junit_xml(report) + "\n")
    if fmt == "github":
        text = "".join(line + "\n" for line in github_report.workflow_annotations(report))
        if summary_used is None:
            return Rendered(text)
        limit = max(SUMMARY_LIMIT - summary_used, 0)
        summary = github_report.job_summary(report, limit=limit)
        notes = [f"job summary: {summary.note}"] if summary.note else []
        return Rendered(text, summary.text, notes)
    return Rendered(table(report))


def _location_json(location: SourceLocation | None) -> dict[str, object] | None:
    return {"path": location.path, "line": location.line} if location else None


def _finding_json(f: Finding) -> dict[str, object]:
    return {
        "policy": f.policy,
        "level": f.level,
        "message": f.message,
        "urn": f.urn,
        "type": f.resource_type,
        "name": f.resource_name,
        "location": _location_json(f.location),
        "fingerprint": f.fingerprint,
    }


def report_json(report: CheckReport) -> dict[str, object]:
    return {
        "stack": report.stack,
        "project": report.project,
        "preview": report.dry_run,
        "pack": {"name": report.pack.name, "version": report.pack.version},
        "resources": report.resource_count,
        # Whether the program ran to its end; if not, how it ended (the check then fails).
        "program": {
            "ranToEnd": report.program_unfinished is None,
            "ending": report.program_unfinished,
        },
        "policies": report.levels,
        "summary": {
            "mandatory": len(report.mandatory),
            "advisory": len(report.advisory),
            "suppressed": len(report.suppressed),
            "baselined": len(report.baselined),
        },
        "findings": [_finding_json(f) for f in report.findings],
        "suppressed": [
            {
                "policy": s.policy,
                "urn": s.urn,
                "reason": s.reason,
                "type": s.resource_type,
                "name": s.resource_name,
                "location": _location_json(s.location),
            }
            for s in report.suppressed
        ],
        "baselined": [_finding_json(f) for f in report.baselined],
    }


def table(report: CheckReport) -> str:
    out = io.StringIO()
    console = tables.console(out, width=160, color_system=None)
    if report.findings:
        grid = Table(title=f"gpufleet check: {report.stack}", title_justify="left")
        grid.add_column("level", no_wrap=True)
        grid.add_column("policy", no_wrap=True)
        grid.add_column("resource", overflow="fold")
        grid.add_column("message", overflow="fold")
        for f in report.findings:
            style = "red" if f.level == "mandatory" else "yellow"
            where = f"\n{f.location.path}:{f.location.line}" if f.location else ""
            grid.add_row(
                Text(f.level, style=style),
                f.policy,
                f"{f.resource_name or 'stack'}{where}",
                f.message,
            )
        console.print(grid)
    for s in report.suppressed:
        # One line each: a reason from the policy config written over several lines must not
        # start a line of its own (in CI, a line "::error ..." would be an annotation).
        reason = " ".join(s.reason.splitlines())
        console.print(f"suppressed {s.policy} on {s.resource_name or 'stack'}: {reason}")
    verdict = f"{len(report.mandatory)} mandatory violation(s)" if report.mandatory else "passed"
    failed = bool(report.mandatory) or report.program_unfinished is not None
    if report.program_unfinished is not None:
        found = f"{len(report.mandatory)} mandatory violation(s)"
        verdict = f"failed: the program {report.program_unfinished}; {found}"
    console.print(
        tables.styled(
            f"{verdict}; {len(report.advisory)} advisory, {len(report.suppressed)} suppressed, "
            f"{len(report.baselined)} baselined; {report.resource_count} resources, "
            f"{len(report.pack.policies)} policies ({report.pack.name}@{report.pack.version})"
            + (" [preview]" if report.dry_run else ""),
            "bold red" if failed else "bold green",
        )
    )
    return out.getvalue()

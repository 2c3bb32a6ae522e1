"""Baselines: adopt policy checks on an existing stack by recording today's findings.

``--write-baseline FILE`` records every finding's fingerprint (policy, resource, message with
numbers masked) with its text for reviewers; ``--baseline FILE`` then reports only findings not
in it, so a pull request is judged on what it adds. Findings that disappear simply drop out.
"""

from __future__ import annotations

import json
from pathlib import Path

from gpufleet.checks.check_run import CheckReport
from gpufleet.json_input import JsonInputError, problem_at, read_json_file

VERSION = 1
# A finding's entry is a few hundred bytes: 16 MiB holds some 40,000 findings (the 2,633-resource
# benchmark stack has 128), and reading it stays far from the JSON limits' memory.
MAX_BASELINE_BYTES = 16 * 1024 * 1024


class BaselineError(ValueError):
    """An unreadable or malformed baseline file (exit 2)."""


def baseline_text(report: CheckReport) -> str:
    """The baseline file recording every finding of ``report``."""
    entries = [
        {"fingerprint": f.fingerprint, "policy": f.policy, "urn": f.urn, "message": f.message}
        for f in report.findings + report.baselined
    ]
    document = {"version": VERSION, "stack": report.stack, "findings": entries}
    return json.dumps(document, indent=2) + "\n"


def load_baseline(path: Path) -> set[str]:
    try:
        data, text = read_json_file(path, what="a gpufleet baseline", limit=MAX_BASELINE_BYTES)
    except JsonInputError as exc:
        raise BaselineError(str(exc)) from None
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise BaselineError(
            problem_at(
                str(path), text, ("version",), f"not a gpufleet baseline (expected {VERSION})"
            )
        )
    findings = data.get("findings")
    if not isinstance(findings, list) or not all(
        isinstance(f, dict) and isinstance(f.get("fingerprint"), str) for f in findings
    ):
        message = "must be a list of objects with a fingerprint"
        raise BaselineError(problem_at(str(path), text, ("findings",), message))
    return {f["fingerprint"] for f in findings}


def apply_baseline(report: CheckReport, fingerprints: set[str]) -> None:
    """Move findings already in the baseline out of ``report.findings``."""
    kept = [f for f in report.findings if f.fingerprint not in fingerprints]
    report.baselined = [f for f in report.findings if f.fingerprint in fingerprints]
    report.findings = kept

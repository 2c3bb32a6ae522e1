"""``gpufleet check --skip-check ID,...``: policies a run acknowledges as a whole, as Checkov's
``--skip-check`` does. Their findings are not dropped: each moves to the report's suppressed
results with the reason "skipped by --skip-check", so every format still shows and counts
what was skipped, and nothing of theirs fails the check."""

from __future__ import annotations

from collections.abc import Iterable

from gpufleet.checks.check_run import CheckReport, Suppressed

SKIPPED_REASON = "skipped by --skip-check"


def skipped_policy_names(values: Iterable[str]) -> list[str]:
    """The policy names of ``--skip-check`` values (each one or several, comma-separated)."""
    names = [name.strip() for value in values for name in value.split(",")]
    return list(dict.fromkeys(name for name in names if name))


def unknown_policies(report: CheckReport, names: Iterable[str]) -> list[str]:
    """The names the pack that ran has no policy of."""
    return [name for name in names if name not in report.levels]


def apply_skipped_policies(report: CheckReport, names: Iterable[str]) -> int:
    """Move the findings of ``names`` to the suppressed results; how many moved."""
    skipped = set(names)
    moved = [f for f in report.findings if f.policy in skipped]
    report.findings = [f for f in report.findings if f.policy not in skipped]
    report.suppressed += [
        Suppressed(
            f.policy,
            f.urn,
            SKIPPED_REASON,
            resource_type=f.resource_type,
            resource_name=f.resource_name,
            location=f.location,
        )
        for f in moved
    ]
    return len(moved)

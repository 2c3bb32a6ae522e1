"""How ``gpufleet rightsize`` shows its recommendations: a table for people, JSON for scripts."""

from __future__ import annotations

import json
from collections.abc import Sequence

import click

from gpufleet.cli import tables
from gpufleet.rightsizing.recommend import Recommendation

L, R = "left", "right"


def _money(value: float | None) -> str:
    return "unplaced" if value is None else tables.money(value)


def _pair(low: float | None, high: float | None, digits: int, unit: str) -> str:
    if low is None or high is None:
        return "-"
    return f"{low:.{digits}f} / {high:.{digits}f}{unit}"


def as_dict(recommendations: Sequence[Recommendation]) -> dict[str, object]:
    """The documented JSON shape (docs/rightsize.md)."""
    rows = []
    for r in recommendations:
        m = r.measured
        rows.append(
            {
                "workload": r.workload,
                "judged": r.not_judged is None,
                "not_judged_reason": r.not_judged,
                "samples": m.samples if m else None,
                "memory_samples": m.memory_samples if m else None,
                "span_hours": round(m.span_hours, 2) if m else None,
                "newest_age_hours": None
                if m is None or m.newest_age_hours is None
                else round(m.newest_age_hours, 2),
                "utilization_p50": m.utilization_p50 if m else None,
                "utilization_p95": m.utilization_p95 if m else None,
                "memory_p50_gib": None
                if m is None or m.memory_p50_gib is None
                else round(m.memory_p50_gib, 3),
                "memory_p95_gib": None
                if m is None or m.memory_p95_gib is None
                else round(m.memory_p95_gib, 3),
                "busy_fraction": None
                if m is None or m.busy_fraction is None
                else round(m.busy_fraction, 4),
                "recommendation": r.change,
                "changes": r.edits,
                "monthly_usd": None if r.monthly_usd is None else round(r.monthly_usd, 2),
                "recommended_monthly_usd": None
                if r.recommended_monthly_usd is None
                else round(r.recommended_monthly_usd, 2),
                "saving_usd": round(r.saving_usd, 2),
            }
        )
    return {
        "workloads": rows,
        "totals": {
            "judged": sum(1 for r in recommendations if r.not_judged is None),
            "changed": sum(1 for r in recommendations if r.edits),
            "saving_usd": round(sum(r.saving_usd for r in recommendations), 2),
        },
    }


def recommendations(found: Sequence[Recommendation], fmt: str) -> None:
    if fmt == "json":
        click.echo(json.dumps(as_dict(found), indent=2))
        return
    console = tables.console()
    table = tables.table(
        ("workload", L),
        ("samples", R),
        ("span h", R),
        ("util % p50/p95", R),
        ("GiB p50/p95", R),
        ("recommendation", L),
        ("$/month", R),
        ("after", R),
        ("saving", R),
    )
    for r in found:
        m = r.measured
        table.add_row(
            r.workload,
            f"{m.samples:,}" if m else "-",
            f"{m.span_hours:.0f}" if m else "-",
            _pair(m.utilization_p50, m.utilization_p95, 0, "") if m else "-",
            _pair(m.memory_p50_gib, m.memory_p95_gib, 1, "") if m else "-",
            r.change if r.not_judged is None else f"not judged: {r.not_judged}",
            _money(r.monthly_usd),
            _money(r.recommended_monthly_usd),
            tables.money(r.saving_usd),
        )
    table.add_section()
    table.add_row(
        "total", "", "", "", "", "", "", "", tables.money(sum(r.saving_usd for r in found))
    )
    tables.print_table(console, table)

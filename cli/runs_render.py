"""Render ``gpufleet runs``: the month's runs per part on request, a table for people or JSON
for scripts."""

from __future__ import annotations

import io
import json
from typing import Any

from gpufleet.cli import tables
from gpufleet.runs.month_runs import MonthRuns, PartMonth

L, R = "left", "right"


def render(runs: MonthRuns, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(as_json(runs), indent=2) + "\n"
    return table(runs)


def as_json(runs: MonthRuns) -> dict[str, Any]:
    return {
        "environment": runs.environment,
        "month": runs.month,
        "parts": [_part(p) for p in runs.parts],
    }


def _part(p: PartMonth) -> dict[str, Any]:
    ledger = p.ledger
    last = ledger.last if ledger is not None else None
    return {
        "workload": p.workload,
        "component": p.component,
        "cloud": p.cloud,
        "region": p.region,
        "scaling": p.scaling,
        "planned_hours": p.planned_hours,
        "used_hours": None if ledger is None else round(ledger.hours, 2),
        "runs": None if ledger is None else ledger.runs,
        "last_run": None
        if last is None
        else {
            "start": last.start.isoformat(timespec="minutes"),
            "end": last.end.isoformat(timespec="minutes"),
            "hours": round(last.minutes / 60, 2),
        },
        "over_plan": None if ledger is None else ledger.over_plan,
        "hourly_usd": None if p.hourly_usd is None else round(p.hourly_usd, 4),
        "cost_so_far_usd": None if p.cost_so_far is None else round(p.cost_so_far, 2),
        "ledger_unreadable": None if ledger is None else ledger.unreadable,
        "problem": p.problem,
    }


def table(runs: MonthRuns) -> str:
    out = io.StringIO()
    console = tables.console(out)
    console.print(tables.bold(f"{runs.environment}: runs on request in {runs.month}"))
    if not runs.parts:
        console.print("no part of this stack runs on request (gpufleet scale sizes none)")
        return out.getvalue()
    grid = tables.table(
        ("workload / part", L),
        ("planned h", R),
        ("used h", R),
        ("runs", R),
        ("last run (UTC)", L),
        ("cost so far $", R),
        ("over plan", L),
    )
    notes: list[str] = []
    for p in runs.parts:
        ledger = p.ledger
        name = f"{p.workload} / {p.component}"
        if ledger is None:
            grid.add_row(name, f"{p.planned_hours:g}", "?", "?", "", "", "")
            notes.append(f"{p.workload}: {p.problem}")
            continue
        last = ledger.last
        when = (
            ""
            if last is None
            else f"{last.start:%m-%d %H:%M} -> {last.end:%m-%d %H:%M} ({last.minutes / 60:g} h)"
        )
        # Past its plan (runs told why): in bold.
        over = ledger.hours > p.planned_hours + 1 / 60
        used = tables.styled(f"{ledger.hours:g}", "bold" if over else "")
        cost = "" if p.cost_so_far is None else tables.money(p.cost_so_far)
        grid.add_row(
            name, f"{p.planned_hours:g}", used, str(ledger.runs), when, cost, ledger.over_plan or ""
        )
        if ledger.unreadable:
            notes.append(f"{p.workload}: {ledger.unreadable}")
    tables.print_table(console, grid)
    for note in notes:
        console.print(tables.styled(note, ""))  # a cloud's words, never markup
    console.print(
        "planned and used: hours at the part's full size; cost so far: those hours at its "
        "catalog rate (spot: the expected rate, not the bill)"
    )
    return out.getvalue()

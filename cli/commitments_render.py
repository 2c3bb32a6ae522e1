"""Render ``gpufleet commitments``: per reserved part, what pays for it and what it costs with
and without the commitment, a table for people or JSON for scripts."""

from __future__ import annotations

import io
import json
from typing import Any

from gpufleet.capacity.cost_report import json_money
from gpufleet.cli import tables
from gpufleet.commitments.account_commitments import AccountCommitments, ReservedPart

L, R = "left", "right"


def render(found: AccountCommitments, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(as_json(found), indent=2) + "\n"
    return table(found)


def as_json(found: AccountCommitments) -> dict[str, Any]:
    return {
        "environment": found.environment,
        "read_at": found.read_at,
        "all_covered": found.all_covered,
        "problems": found.problems,
        "parts": [_part(p) for p in found.parts],
        "commitments": [h.as_config() for h in found.used],
    }


def _part(p: ReservedPart) -> dict[str, Any]:
    return {
        "workload": p.workload,
        "component": p.component,
        "cloud": p.cloud,
        "region": p.region,
        "zone": p.zone,
        "instance_type": p.instance_type,
        "instances": p.instances,
        "planned_commitment": p.planned,
        "covered_instances": p.covered_instances,
        "covered_by_term": dict(p.covered),
        "commitments": list(p.commitments),
        "ends": list(p.ends),
        "monthly_usd": json_money(p.monthly_usd),
        "on_demand_monthly_usd": json_money(p.on_demand_usd),
        "planned_monthly_usd": json_money(p.planned_usd),
        "saving_to_buy_usd": json_money(p.saving_to_buy),
        "unread": p.unread,
    }


def table(found: AccountCommitments) -> str:
    out = io.StringIO()
    console = tables.console(out)
    console.print(tables.bold(f"{found.environment}: commitments for reserved capacity"))
    if not found.parts:
        console.print("no part of this stack is reserved: no commitment to verify")
        return out.getvalue()
    grid = tables.table(
        ("workload / part", L),
        ("where", L),
        ("reserved", L),
        ("plan", L),
        ("held", L),
        ("ends", L),
        ("$/month now", R),
        ("on-demand $/month", R),
        ("buying saves $/month", R),
    )
    for p in found.parts:
        held = "?" if p.unread else f"{p.covered_instances:g} of {p.instances}"
        if p.commitments:
            held += f" ({', '.join(dict.fromkeys(p.commitments))})"
        saving = p.saving_to_buy
        grid.add_row(
            f"{p.workload} / {p.component}",
            f"{p.cloud} {p.zone or p.region}",
            f"{p.instances} x {p.instance_type}",
            p.planned,
            tables.styled(held, "" if p.fully_covered else "bold"),
            min(p.ends) if p.ends else "",
            "?" if p.monthly_usd is None else tables.money(p.monthly_usd),
            "?" if p.on_demand_usd is None else tables.money(p.on_demand_usd),
            "" if not saving else tables.money(saving),
        )
    tables.print_table(console, grid)
    for problem in found.problems:
        console.print(tables.styled(f"not read: {problem}", ""))  # a cloud's words, no markup
    console.print(
        "$/month now: held commitments at their rate, the rest at on-demand (what gpufleet cost "
        "and gpu-budget price with site:commitments or --commitments); buying saves: the plan's "
        "commitment for the rest. Reserved instances and Azure reservations cover their own "
        "instance type; Savings Plans as many instances as their hourly spend buys at the "
        "catalog's committed rate."
    )
    return out.getvalue()

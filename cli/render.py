"""Render plans, explanations and catalog offers as tables (rich), JSON or CSV on stdout.

Problems that make the exit status non-zero (unplaced workloads, budgets) go to stderr, so
``--format json`` output stays parseable when piped.
"""

from __future__ import annotations

import csv
import json
import sys
from collections import Counter
from collections.abc import Iterable

import click
from rich.console import Console

from gpufleet.cli import messages, tables
from gpufleet.cli.tables import L, R
from gpufleet.planner.catalog import COLUMNS, Offer, offer_to_row
from gpufleet.planner.explanation import Evaluation
from gpufleet.planner.gpu_sharing import SharedGpu
from gpufleet.planner.managed_services import MANAGED_SERVICES
from gpufleet.planner.packing import packs, unit_name
from gpufleet.planner.plan import EnvironmentPlan, Placement, Plan
from gpufleet.pricing_models import is_commitment


def _where(p: Placement) -> str:
    o = p.offer
    return " ".join(part for part in (o.cloud, o.region, o.zone) if part)


def _gpus(p: Placement) -> str:
    """``2x8 H100``: instances x GPUs per instance; burst instances after a plus; replicas
    (or workers) packed onto each instance in brackets."""
    text = f"{p.instances}x{p.offer.gpu_count} {p.offer.gpu_name}"
    if p.burst:
        text += f" +{p.burst.instances} burst"
    if p.replicas_per_instance > 1:
        shared = "" if p.shared is None else f", {_sharing(p.shared)}"
        text += f" ({p.replicas_per_instance} {unit_name(p.kind)} each{shared})"
    return text


_SHARING_WORDS = {"mig": "MIG", "mps": "MPS", "time_slicing": "time-sliced"}


def _sharing(shared: SharedGpu) -> str:
    """``MIG 4 a GPU``: how replicas share a GPU, and how many do."""
    return f"{_SHARING_WORDS[shared.mode]} {shared.replicas} a GPU"


def _pricing(p: Placement) -> str:
    text = p.pricing
    if p.managed is not None and p.pricing == "spot":
        text = MANAGED_SERVICES[p.managed].spot_name
    if p.burst:
        text += f" + {p.burst.pricing} burst"
    return text


_HOURS_WORDS = {"always_on": "always on", "schedule": "schedule", "on_request": "on request"}


def _hours(p: Placement) -> str:
    """How the capacity's hours happen, and how many: ``always on``, ``schedule 261 h``,
    ``on request 60 h``; an always-on base's burst after a plus."""
    if p.hours_model == "always_on" and p.burst is None:
        return _HOURS_WORDS["always_on"]
    if p.burst is not None:
        burst = "schedule" if p.hours_model == "schedule" else "burst"
        return f"always on + {burst} {p.burst.hours_per_month:.0f} h"
    return f"{_HOURS_WORDS[p.hours_model]} {p.hours_per_month:.0f} h"


def plan(result: Plan, fmt: str) -> None:
    if fmt == "json":
        click.echo(json.dumps(result.as_dict(), indent=2))
    else:
        console = tables.console()
        for env in result.environments:
            _environment_table(console, env, result.catalog_as_of)
    _report_problems(result)


def _environment_table(console: Console, env: EnvironmentPlan, as_of: str) -> None:
    budget = env.limits.monthly_budget_usd
    title = tables.joined(tables.bold(env.environment), f": prices as of {as_of}")
    if budget is not None:
        title += f", budget {tables.money(budget)} $/month"
    console.print(title)
    table = tables.table(
        ("workload", L),
        ("kind", L),
        ("where", L),
        ("instance type", L),
        ("GPUs", L),
        ("pricing", L),
        ("hours a month", L),
        ("$/hour", R),
        ("$/month", R),
        ("on-demand $/month", R),
        ("saving", R),
    )
    for p in env.placements:
        table.add_row(
            p.name,
            p.kind,
            _where(p),
            p.instance_type,
            _gpus(p),
            _pricing(p),
            _hours(p),
            tables.money(p.hourly_usd),
            tables.money(p.monthly_usd),
            tables.money(p.baseline_monthly_usd),
            _saving(p.savings_usd, p.baseline_monthly_usd),
        )
    for u in env.unplaced:
        table.add_row(u.name, u.kind, "-", "-", "-", "not placed", "", "", "", "", "")
    table.add_section()
    table.add_row(
        "total",
        "",
        "",
        "",
        f"{env.total_gpus} GPUs",
        "",
        "",
        tables.money(env.hourly_usd),
        tables.money(env.monthly_usd),
        tables.money(env.baseline_monthly_usd),
        _saving(env.savings_usd, env.baseline_monthly_usd),
    )
    tables.print_table(console, table)
    if any(is_commitment(p.pricing) for p in env.placements):
        console.print(
            f"{COMMITMENT_NOTE} Until then it bills {tables.money(env.uncommitted_monthly_usd)} "
            f"$/month, not {tables.money(env.monthly_usd)}: gpufleet cost and gpu-budget price "
            f"it so, and gpufleet commitments --env {env.environment} verifies the purchases."
        )
    console.print()


# The plan prices reserved capacity at a commitment's rate; the stack can only hold the capacity.
COMMITMENT_NOTE = (
    "reserved_1y / reserved_3y: the stack holds the capacity (a capacity reservation); the "
    "commitment that gives its rate (Savings Plan or reserved instances, committed use "
    "discount, Azure reservation) is bought outside Pulumi (on GCP the stack buys it with "
    "site:gcp purchaseCommitments). Without it, the reservation bills at the on-demand rate "
    "whether used or not."
)


def _saving(saving: float, baseline: float) -> str:
    if baseline <= 0:
        return "-"
    return f"{tables.money(saving)} ({100 * saving / baseline:.0f}%)"


def _report_problems(result: Plan) -> None:
    for env in result.environments:
        for u in env.unplaced:
            messages.echo(f"{env.environment}: {u.name}: not placed: {u.reason}", err=True)
        if env.over_budget_usd is not None:
            budget = tables.money(env.limits.monthly_budget_usd or 0)
            messages.echo(
                f"{env.environment}: {tables.money(env.monthly_usd)} $/month is over the budget "
                f"of {budget} by {tables.money(env.over_budget_usd)}",
                err=True,
            )


def explanations(evaluations: list[tuple[str, Evaluation]], top: int, fmt: str) -> None:
    """One explanation per (environment, evaluation) of a workload."""
    if fmt == "json":
        click.echo(
            json.dumps([_explanation_dict(env, ev, top) for env, ev in evaluations], indent=2)
        )
    else:
        console = tables.console()
        for env, ev in evaluations:
            _explanation_table(console, env, ev, top)


def _explanation_dict(env: str, ev: Evaluation, top: int) -> dict[str, object]:
    ranked = ev.ranked(top)
    best = ranked[0].monthly_usd if ranked else 0.0
    return {
        "environment": env,
        "workload": ev.workload.name,
        "need": ev.need.description,
        "gpu_options": [
            {
                "gpu_name": o.gpu_name,
                "min_gpus_per_instance": o.min_per_node,
                "sharing": None if o.shared is None else o.shared.as_dict(),
            }
            for o in ev.need.options
        ],
        "excluded": [
            {"stage": s.label, "offers": s.excluded, "excluded_because": s.what}
            for s in ev.stages
            if s.excluded
        ],
        "candidates": [
            p.as_dict() | {"extra_monthly_usd": round(p.monthly_usd - best, 2)} for p in ranked
        ],
        "best_per_pricing": [
            p.as_dict() | {"extra_monthly_usd": round(p.monthly_usd - best, 2)}
            for p in ev.best_by_pricing()
        ],
        "placed": bool(ranked),
        "reason": ev.reason,
    }


def _mig_layout(shared: SharedGpu) -> str:
    """``: 2g.10gb x3 + 1g.10gb``: a MIG layout of one GPU."""
    if not shared.mig_profiles:
        return ""
    counts = Counter(shared.mig_profiles)
    return ": " + " + ".join(
        name if count == 1 else f"{name} x{count}" for name, count in counts.items()
    )


def _explanation_table(console: Console, env: str, ev: Evaluation, top: int) -> None:
    needs = f" in {env}: needs {ev.need.description}"
    console.print(tables.joined(tables.bold(ev.workload.name), needs))
    options = ", ".join(
        f"{o.min_per_node}x {o.gpu_name}"
        + ("" if o.shared is None else f" ({_sharing(o.shared)}{_mig_layout(o.shared)})")
        for o in ev.need.options
    )
    if options and packs(ev.workload):
        unit = unit_name(ev.workload.kind).removesuffix("s")
        console.print(
            f"  GPU options per {unit}: {options} (several {unit}s may share an instance)"
        )
    elif options:
        console.print(f"  GPU options per instance: {options}")
    for stage in ev.stages:
        if stage.excluded:
            console.print(f"  excluded {stage.excluded} offers at {stage.label}: {stage.what}")
    ranked = ev.ranked(top)
    if not ranked:
        console.print(tables.joined("  ", tables.styled("not placed", "red"), f": {ev.reason}"))
        console.print()
        return
    table = tables.table(
        ("#", R),
        ("where", L),
        ("instance type", L),
        ("GPUs", L),
        ("pricing", L),
        ("$/month", R),
        ("why not", L),
    )
    best = ranked[0].monthly_usd
    for i, p in enumerate(ranked, start=1):
        extra = p.monthly_usd - best
        why = (
            "cheapest: chosen"
            if i == 1
            else f"+{tables.money(extra)} $/month (+{100 * extra / best:.1f}%)"
        )
        table.add_row(
            str(i),
            _where(p),
            p.instance_type,
            _gpus(p),
            _pricing(p),
            tables.money(p.monthly_usd),
            why,
        )
    tables.print_table(console, table)
    spot = _spot_priced_in(ranked[0])
    if spot:
        console.print(f"  {spot}")
    by_pricing = ev.best_by_pricing()
    if len(by_pricing) > 1:
        console.print("  best per pricing model:")
        for p in by_pricing:
            extra = p.monthly_usd - best
            delta = "chosen" if extra == 0 else f"+{tables.money(extra)} $/month"
            console.print(
                f"    {_pricing(p):<28} {tables.money(p.monthly_usd):>12} $/month  {_where(p)} "
                f"{p.instance_type}  ({delta})"
            )
    console.print()


def _spot_priced_in(p: Placement) -> str:
    """Where the chosen placement's spot price is read, and why there."""
    o = p.offer
    if p.spot_scope == "zone" and o.zone:
        return (
            f"spot priced in zone {o.zone}: its capacity runs in that one zone, which offers "
            f"{o.instance_type} on spot"
        )
    if p.spot_scope == "region" and p.spot_zones > 1:
        return (
            f"spot priced at the mean of the {p.spot_zones} zones of {o.region} that offer "
            f"{o.instance_type} on spot: its capacity may run in any of them"
        )
    if p.spot_scope == "region" and o.zone:
        return (
            f"spot priced at the one zone of {o.region} that offers {o.instance_type} on "
            "spot: its capacity may run in any zone of the region"
        )
    return ""


def offers(rows: Iterable[Offer], fmt: str) -> None:
    rows = list(rows)
    if fmt == "json":
        click.echo(json.dumps([o.as_dict() for o in rows], indent=2))
        return
    if fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows(offer_to_row(o) for o in rows)
        return
    if not rows:
        messages.echo("no offers match", err=True)
        return
    console = tables.console()
    console.print(f"{len(rows)} offers, prices as of {min(o.as_of for o in rows)}")
    table = tables.table(
        ("cloud", L),
        ("region", L),
        ("zone", L),
        ("instance type", L),
        ("GPU", L),
        ("count", R),
        ("GiB/GPU", R),
        ("vCPUs", R),
        ("RAM GiB", R),
        ("on-demand $/h", R),
        ("spot $/h", R),
    )
    for o in rows:
        table.add_row(
            o.cloud,
            o.region,
            o.zone,
            o.instance_type,
            o.gpu_name,
            str(o.gpu_count),
            f"{o.gpu_memory_gib:g}",
            f"{o.vcpus:g}",
            f"{o.memory_gib:g}",
            f"{o.on_demand_hourly:.4f}",
            "-" if o.spot_hourly is None else f"{o.spot_hourly:.4f}",
        )
    tables.print_table(console, table)

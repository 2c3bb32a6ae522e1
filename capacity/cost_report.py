"""A stack's cost as a report: the documented JSON shape of ``gpufleet cost --format json``, and
reading one back (``--compare-to`` a report saved on the base branch).

``CostReport`` is the engine's ``StackCost`` with what the command adds: which stack, its
budget (and which figure the budget holds), and the plan's figures when the stack config
carries them. ``as_dict`` is the stable JSON shape (``cost_report.schema.json`` describes it;
money rounded to cents, rates and hourly figures to 1/100 of a cent); ``load_report`` reads one
back, validated against that schema, and raises ``ReportError`` naming the file and the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from gpufleet.capacity.cost_engine import FIGURES, Amount, Figure, ResourceCost, StackCost
from gpufleet.capacity.plan_drift import DEFAULT_TOLERANCE, Drift, plan_drift
from gpufleet.json_input import JsonInputError, problem_at, read_json_file

FORMAT = "gpufleet-cost"
VERSION = 1
REPORT_SCHEMA = Path(__file__).with_name("cost_report.schema.json")


class ReportError(ValueError):
    """A saved report that cannot be read (a user mistake: exit 2)."""


@dataclass(frozen=True)
class Budget:
    monthly_usd: float
    estimate: Figure  # which figure the budget holds
    source: str  # where it was set, for people
    # The gpu-budget policy's enforcement level: only a mandatory budget fails (exit 1).
    level: str = "mandatory"
    # What it is, for people: the budget, or the worst-case cap on the maximum figure.
    what: str = "budget"

    @property
    def mandatory(self) -> bool:
        return self.level == "mandatory"


@dataclass(frozen=True)
class CostReport:
    project: str
    stack: str
    cost: StackCost
    budget: Budget | None = None
    # gpu-budget's worstCaseMonthlyUsd: a cap on the maximum figure, beside the budget.
    cap: Budget | None = None
    # How far a workload's expected cost may leave its plan (the plan-drift policy's
    # tolerance); None when that policy is disabled.
    drift_tolerance: float | None = DEFAULT_TOLERANCE

    @property
    def drift(self) -> list[Drift]:
        """The workloads whose expected cost left the plan (``capacity.plan_drift``)."""
        if self.drift_tolerance is None:
            return []
        planned = {
            w.name: w.plan_monthly_usd
            for w in self.cost.workloads
            if w.plan_monthly_usd is not None
        }
        return plan_drift(self.cost, planned, self.drift_tolerance)

    @property
    def limits(self) -> list[Budget]:
        """The budget and the worst-case cap the stack is held to, those set."""
        return [b for b in (self.budget, self.cap) if b is not None]

    def over_usd(self, limit: Budget | None) -> float | None:
        """By how much the stack's figure is over ``limit``; None when it is not (or unset)."""
        if limit is None:
            return None
        total = self.cost.total(limit.estimate)
        return total - limit.monthly_usd if total > limit.monthly_usd else None

    @property
    def plan_monthly_usd(self) -> float | None:
        planned = [w.plan_monthly_usd for w in self.cost.workloads]
        if all(p is None for p in planned):
            return None
        return sum(p or 0.0 for p in planned)

    @property
    def over_budget_usd(self) -> float | None:
        return self.over_usd(self.budget)

    @property
    def breaks_budget(self) -> bool:
        """What the gpu-budget policy flags: over the budget or the worst-case cap, or GPU
        capacity it cannot price while either is set."""
        return bool(self.limits) and (
            any(self.over_usd(limit) is not None for limit in self.limits)
            or bool(self.cost.unpriceable)
        )

    @property
    def fails_budget(self) -> bool:
        """What fails the check: a mandatory budget broken (an advisory one only warns); the
        budget and the cap are one policy's, at its level."""
        return self.breaks_budget and any(limit.mandatory for limit in self.limits)

    def as_dict(self) -> dict[str, Any]:
        cost = self.cost
        return {
            "format": FORMAT,
            "version": VERSION,
            "project": self.project,
            "stack": self.stack,
            "catalog_as_of": cost.catalog_as_of,
            "budget": _limit(self.budget),
            "worst_case_cap": _limit(self.cap),
            "totals": {
                **{
                    which: {
                        "hourly_usd": _rate(cost.total(which, hourly=True)),
                        "monthly_usd": json_money(cost.total(which)),
                    }
                    for which in FIGURES
                },
                "plan_monthly_usd": json_money(self.plan_monthly_usd),
                "uncommitted_usd": json_money(cost.uncommitted_usd),
                "over_budget_usd": json_money(self.over_budget_usd),
                "over_worst_case_cap_usd": json_money(self.over_usd(self.cap)),
                "unpriced": len(cost.unpriced),
                "resources": cost.resource_count,
            },
            "workloads": [
                {
                    "name": w.name,
                    "plan_monthly_usd": json_money(w.plan_monthly_usd),
                    "unpriced": len(w.unpriced),
                    **{
                        which: {
                            "hourly_usd": _rate(w.total(which, hourly=True)),
                            "monthly_usd": json_money(w.total(which)),
                        }
                        for which in FIGURES
                    },
                    "resources": [_resource(r) for r in w.resources],
                }
                for w in cost.workloads
            ],
            "not_priced": [
                {"what": n.what, "why": n.why, "resources": list(n.resources)}
                for n in cost.not_priced
            ],
            "plan_drift": [
                {
                    "workload": d.workload,
                    "plan_monthly_usd": json_money(d.plan),
                    "expected_monthly_usd": json_money(d.expected),
                    "message": d.message,
                }
                for d in self.drift
            ],
        }


def _limit(limit: Budget | None) -> dict[str, Any] | None:
    if limit is None:
        return None
    return {
        "monthly_usd": json_money(limit.monthly_usd),
        "estimate": limit.estimate,
        "source": limit.source,
        "level": limit.level,
    }


def _resource(r: ResourceCost) -> dict[str, Any]:
    return {
        "urn": r.urn,
        "name": r.name,
        "part": r.part,
        "type": r.type,
        "kind": r.kind,
        "cloud": r.cloud,
        "region": r.region,
        "instance_types": list(r.instance_types),
        "gpus_per_instance": r.gpus_per_instance,
        "pricing": r.pricing,
        "commitment": r.commitment,
        "planned_commitment": r.planned_commitment,
        "covered_instances": r.covered_instances,
        "commitments": list(r.commitments),
        "uncommitted_usd": json_money(r.uncommitted_usd),
        "rate_usd": _rate(r.rate_usd),
        "expected": _amount(r.expected),
        "maximum": _amount(r.maximum),
        "basis": r.basis,
        "declared_minutes": r.declared_minutes,
        "per_run": r.per_run,
        "in_totals": r.in_totals,
        "estimated": list(r.estimated),
        "unpriced": r.unpriced,
        "notes": list(r.notes),
    }


def _amount(a: Amount) -> dict[str, Any]:
    return {
        "instances": a.instances,
        "hours": a.hours,
        "hourly_usd": _rate(a.hourly_usd),
        "monthly_usd": json_money(a.monthly_usd),
    }


def json_money(value: float | None) -> float | None:
    """A dollar figure as the JSON reports give it: to the cent, null when there is none."""
    return None if value is None else round(value, 2)


def _rate(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


# Money in a report is rounded to cents: closer than half of one is the same amount.
HALF_CENT = 0.005


@cache
def report_schema() -> dict[str, Any]:
    return json.loads(REPORT_SCHEMA.read_text(encoding="utf-8"))


# Fields gpufleet fills with its own words ("Auto Scaling group", "spot") or Pulumi's
# identifiers (a type token, a URN: never secret to Pulumi), not with a property's value.
_WORD_FIELDS = frozenset({"kind", "pricing", "basis", "type", "urn", "status"})


@cache
def vocabulary_keys() -> frozenset[str]:
    """The report's fields that never hold a value read from the stack (what masking secrets
    leaves alone): those whose values the schema fixes (``enum``, ``const``), and gpufleet's
    words and Pulumi's identifiers."""
    found: set[str] = set(_WORD_FIELDS)
    nodes: list[Any] = [report_schema()]
    while nodes:
        node = nodes.pop()
        if isinstance(node, list):
            nodes.extend(node)
        elif isinstance(node, dict):
            for key, value in node.items():
                if key == "properties" and isinstance(value, dict):
                    for name, field in value.items():
                        if isinstance(field, dict) and ("enum" in field or "const" in field):
                            found.add(name)
                        nodes.append(field)
                else:
                    nodes.append(value)
    return frozenset(found)


def is_report(data: Any) -> bool:
    """Whether a parsed JSON document claims to be a cost report (validate it to be sure)."""
    return isinstance(data, dict) and data.get("format") == FORMAT


def check_report(data: Any, source: str, text: str = "") -> dict[str, Any]:
    """``data`` if it is a valid cost report; ReportError naming the first bad field (its
    line, given the file's ``text``)."""
    validator = jsonschema.Draft202012Validator(report_schema())
    # The first problem only: a hostile report can hold millions.
    error = next(validator.iter_errors(data), None)
    if error is not None:
        message = f"{error.message} (not a gpufleet cost report)"
        raise ReportError(problem_at(source, text, tuple(error.path), message))
    _check_consistent(data, source, text)
    return data


def _check_consistent(data: dict[str, Any], source: str, text: str) -> None:
    """What the schema cannot say: each resource and workload once, and totals that are the
    sums of their resources (a hand-edited base would otherwise make a diff say anything)."""

    def bad(path: tuple[str | int, ...], message: str) -> ReportError:
        return ReportError(problem_at(source, text, path, message))

    workloads: set[str] = set()
    # A resource of several parts has a line per part (reports before parts had none).
    urns: set[tuple[str, str | None]] = set()
    sums = dict.fromkeys(FIGURES, 0.0)
    unpriced = resources = 0
    for i, workload in enumerate(data["workloads"]):
        if workload["name"] in workloads:
            raise bad(("workloads", i, "name"), f"{workload['name']!r} appears twice")
        workloads.add(workload["name"])
        for j, r in enumerate(workload["resources"]):
            key = (r["urn"], r.get("part"))
            if key in urns:
                raise bad(("workloads", i, "resources", j, "urn"), f"{r['urn']!r} appears twice")
            urns.add(key)
            resources += 1
            if not r["in_totals"]:
                continue
            unpriced += r["unpriced"] is not None
            for which in FIGURES:
                sums[which] += r[which]["monthly_usd"] or 0.0
    totals = data["totals"]
    for which in FIGURES:
        stated = totals[which]["monthly_usd"]
        # Each resource's figure is rounded to the cent, and so is the total.
        if abs(stated - sums[which]) > HALF_CENT * (resources + 1):
            raise bad(
                ("totals", which, "monthly_usd"),
                f"{stated:,.2f} is not the sum of its resources ({sums[which]:,.2f})",
            )
    if totals["unpriced"] != unpriced:
        raise bad(
            ("totals", "unpriced"),
            f"{totals['unpriced']} is not the number of unpriced resources ({unpriced})",
        )


def load_report(path: Path) -> dict[str, Any]:
    """A saved ``gpufleet cost --format json`` report; ReportError if unusable."""
    try:
        data, text = read_json_file(path, what="a cost report")
    except JsonInputError as exc:
        raise ReportError(str(exc)) from None
    return check_report(data, str(path), text)

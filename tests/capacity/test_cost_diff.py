"""Two cost reports compared: resources added, removed and changed, matched across stacks by
their URN less stack and project, the largest change first; nothing changed, nothing listed."""

from __future__ import annotations

import copy
from typing import Any

from gpufleet.capacity.cost_diff import diff_reports, resource_key


def resource(name: str, monthly: float, **fields: Any) -> dict[str, Any]:
    amount = {"instances": 1.0, "hours": 730, "hourly_usd": monthly / 730, "monthly_usd": monthly}
    return {
        "urn": f"urn:pulumi:prod::acme::aws:ec2/instance:Instance::{name}",
        "name": name,
        "type": "aws:ec2/instance:Instance",
        "kind": "EC2 instance",
        "cloud": "aws",
        "region": "us-east-1",
        "instance_types": ["g6.xlarge"],
        "gpus_per_instance": 1,
        "pricing": "on_demand",
        "commitment": None,
        "rate_usd": monthly / 730,
        "expected": dict(amount),
        "maximum": dict(amount),
        "basis": "its size, all month",
        "per_run": False,
        "in_totals": True,
        "estimated": [],
        "unpriced": None,
        "notes": [],
        **fields,
    }


def report(stack: str, **workloads: list[dict[str, Any]]) -> dict[str, Any]:
    def pair(entries: list[dict[str, Any]], which: str) -> dict[str, float]:
        monthly = sum(r[which]["monthly_usd"] or 0.0 for r in entries)
        return {"hourly_usd": monthly / 730, "monthly_usd": monthly}

    listed = [
        {
            "name": name,
            "plan_monthly_usd": None,
            "expected": pair(entries, "expected"),
            "maximum": pair(entries, "maximum"),
            "resources": [
                {**r, "urn": r["urn"].replace(":prod::", f":{stack}::")} for r in entries
            ],
        }
        for name, entries in workloads.items()
    ]
    every = [r for w in listed for r in w["resources"]]
    return {
        "project": "acme",
        "stack": stack,
        "totals": {"expected": pair(every, "expected"), "maximum": pair(every, "maximum")},
        "workloads": listed,
    }


def test_added_removed_changed_and_unchanged_resources() -> None:
    base = report(
        "base", evals=[resource("a", 100.0), resource("b", 50.0)], old=[resource("c", 10.0)]
    )
    bigger = resource("a", 400.0, instance_types=["g6.12xlarge"], rate_usd=200.0 / 730)
    bigger["expected"]["instances"] = 2.0
    head = report("head", evals=[bigger, resource("b", 50.0)], new=[resource("d", 5.0)])
    diff = diff_reports(base, head)
    assert diff.delta("expected") == 455.0 - 160.0
    changed = [(c.status, c.name, c.delta("expected")) for c in diff.changed]
    assert changed == [("changed", "a", 300.0), ("removed", "c", -10.0), ("added", "d", 5.0)]
    (a,) = [c for c in diff.changed if c.name == "a"]
    assert a.changes == (
        "instance type g6.xlarge -> g6.12xlarge",
        "expected instances 1 -> 2",
        "rate $/h 0.136986 -> 0.273973",
    )
    assert [w.name for w in diff.workloads] == ["evals", "new", "old"]
    (evals,) = [w for w in diff.workloads if w.name == "evals"]
    assert [c.status for c in evals.resources] == ["changed", "unchanged"]


def test_the_same_resource_in_another_stack_is_the_same_resource() -> None:
    assert resource_key("urn:pulumi:dev::acme::a$b::x") == resource_key(
        "urn:pulumi:prod::acme::a$b::x"
    )
    same = report("prod", evals=[resource("a", 100.0)])
    diff = diff_reports(report("dev", evals=[resource("a", 100.0)]), same)
    assert diff.changed == [] and diff.delta("expected") == 0.0


def test_a_price_change_alone_is_a_change() -> None:
    base = report("prod", evals=[resource("a", 100.0)])
    head = copy.deepcopy(base)
    head["workloads"][0]["resources"][0]["expected"]["monthly_usd"] = 120.0
    (change,) = diff_reports(base, head).changed
    assert change.changes == ("cost",) and change.delta("expected") == 20.0


def test_becoming_unpriced_is_a_change_and_counts_as_nothing() -> None:
    base = report("prod", evals=[resource("a", 100.0)])
    unknown = resource("a", 0.0, unpriced="no catalog price")
    unknown["expected"]["monthly_usd"] = unknown["maximum"]["monthly_usd"] = None
    (change,) = diff_reports(base, report("prod", evals=[unknown])).changed
    assert "now unpriced" in change.changes and change.monthly("head", "expected") == 0.0


def test_a_declared_use_or_what_the_settings_run_edited_by_hand_is_a_change() -> None:
    """A tag edited by hand moves no machine and no count: the change says what it declares
    now, and what the expected figure assumes; a report saved before reports declared their
    use is compared without it."""
    base = report("prod", evals=[resource("a", 100.0, declared_minutes=9900)])
    head = report(
        "prod",
        evals=[
            resource(
                "a",
                1.0,
                declared_minutes=60,
                basis="up to its max size for 1 h a month",
                rate_usd=100.0 / 730,
            )
        ],
    )
    (change,) = diff_reports(base, head).changed
    assert change.changes == (
        "declared use (expected-minutes) h/month 165 -> 1",
        "expected now: up to its max size for 1 h a month",
    )
    older = report("prod", evals=[resource("a", 100.0)])
    assert diff_reports(older, base).changed == []

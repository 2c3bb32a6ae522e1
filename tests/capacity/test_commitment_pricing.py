"""Commitments are verified, not assumed: a reservation is priced at a committed rate only for
the instances a held commitment pays for (``capacity.commitments.cover``), each commitment
spent once; a commitment tag is the plan's forecast. Declarations that are not commitments
are one line per problem."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pulumi_aws as aws
import pytest

from gpufleet.capacity.commitments import HeldCommitment, parse_commitments
from gpufleet.capacity.commitments_file import CommitmentsFileError, read_commitments_file
from gpufleet.capacity.cost_engine import ResourceCost, StackCost, price_stack
from gpufleet.capacity.plan_drift import plan_drift
from gpufleet.capacity.stack_resource import stack_resources
from gpufleet.engine.analyzer_resources import from_capture
from gpufleet.engine.capture import capture_program
from gpufleet.planner.rates import shipped_rate_card
from gpufleet.pricing_models import HOURS_PER_MONTH
from tests.capacity.test_cost_engine import CONFIG, TAGS

TODAY = date(2026, 11, 27)


def rate(pricing: str, instance_type: str = "g6.12xlarge", region: str = "us-east-1") -> float:
    found = shipped_rate_card().rate("aws", instance_type, region, pricing)  # type: ignore[arg-type]
    assert found is not None
    return found.hourly


def reservations(*pools: tuple[str, int, str]) -> list[Any]:
    """Capacity reservations (name, count, zone) whose plan forecasts a 1y commitment."""

    def program() -> None:
        for name, count, zone in pools:
            aws.ec2.CapacityReservation(
                name,
                instance_type="g6.12xlarge",
                instance_count=count,
                instance_platform="Linux/UNIX",
                availability_zone=zone,
                tags={**TAGS, "workload": "chat", "commitment": "1y"},
            )

    return stack_resources(from_capture(capture_program(program, config=CONFIG).capture))


def price(resources: list[Any], held: list[HeldCommitment]) -> StackCost:
    return price_stack(resources, shipped_rate_card(), commitments=held, today=TODAY)


def line(cost: StackCost, name: str) -> ResourceCost:
    (found,) = [r for r in cost.resources if r.name == name]
    return found


def ri(
    count: int, *, zone: str | None = None, end: str = "2027-06-01", **kw: Any
) -> HeldCommitment:
    return HeldCommitment(
        "aws",
        kw.pop("id", f"ri-{count}-{zone}"),
        kw.pop("term", "1y"),
        "instances",
        "us-east-1",
        zone=zone,
        instance_type=kw.pop("instance_type", "g6.12xlarge"),
        count=count,
        end=end,
    )


def test_a_reserved_instance_pays_for_what_it_covers_and_the_rest_bills_on_demand() -> None:
    resources = reservations(("serving", 3, "us-east-1a"))
    od, one = rate("on_demand"), rate("reserved_1y")
    bare = line(price(resources, []), "serving")
    assert bare.expected.monthly_usd == pytest.approx(3 * od * HOURS_PER_MONTH)
    assert bare.uncommitted_usd == pytest.approx(3 * (od - one) * HOURS_PER_MONTH)
    part = line(price(resources, [ri(2)]), "serving")
    assert part.covered_instances == 2 and part.commitment == "1y"
    assert part.expected.monthly_usd == pytest.approx((2 * one + od) * HOURS_PER_MONTH)
    assert part.uncommitted_usd == pytest.approx((od - one) * HOURS_PER_MONTH)
    assert "pay for 2 at 1y of its 3 instance(s); 1 at the on-demand rate" in part.notes[0]
    full = line(price(resources, [ri(2), ri(5, zone="us-east-1a", id="zonal")]), "serving")
    assert full.covered_instances == 3 and full.uncommitted_usd == 0
    assert full.expected.monthly_usd == pytest.approx(3 * one * HOURS_PER_MONTH)
    # The zonal one, narrowest, is spent first.
    assert full.commitments[0] == "zonal"


@pytest.mark.parametrize(
    ("held", "why"),
    [
        (ri(3, zone="us-east-1b"), "another zone"),
        (ri(3, instance_type="g6.48xlarge"), "another type"),
        (ri(3, end="2026-11-26"), "ended yesterday"),
        (
            HeldCommitment(
                "gcp", "c", "1y", "instances", "us-east-1", instance_type="g6.12xlarge", count=3
            ),
            "another cloud",
        ),
    ],
)
def test_a_commitment_that_does_not_match_pays_for_nothing(held: HeldCommitment, why: str) -> None:
    serving = line(price(reservations(("serving", 3, "us-east-1a")), [held]), "serving")
    assert serving.covered_instances == 0, why
    assert serving.expected.monthly_usd == pytest.approx(3 * rate("on_demand") * HOURS_PER_MONTH)


def test_each_commitment_is_spent_once_over_a_stacks_reservations() -> None:
    resources = reservations(("a", 2, "us-east-1a"), ("b", 2, "us-east-1b"))
    cost = price(resources, [ri(3)])
    assert line(cost, "a").covered_instances + line(cost, "b").covered_instances == 3


def test_a_savings_plan_pays_for_as_many_instances_as_its_spend_buys() -> None:
    one = rate("reserved_1y")
    plan = HeldCommitment(
        "aws", "sp", "1y", "savings_plan", "us-east-1", family="g6", hourly_usd=1.5 * one
    )
    serving = line(price(reservations(("serving", 2, "us-east-1a")), [plan]), "serving")
    assert serving.covered_instances == pytest.approx(1.5)
    other = HeldCommitment("aws", "sp", "1y", "savings_plan", None, family="p5", hourly_usd=99)
    assert line(price(reservations(("s", 2, "us-east-1a")), [other]), "s").covered_instances == 0
    compute = HeldCommitment("aws", "sp", "1y", "savings_plan", None, hourly_usd=99)
    assert line(price(reservations(("s", 2, "us-east-1a")), [compute]), "s").covered_instances == 2


def test_plan_drift_does_not_count_a_commitment_still_to_buy_but_the_budget_does() -> None:
    resources = reservations(("serving", 2, "us-east-1a"))
    planned = 2 * rate("reserved_1y") * HOURS_PER_MONTH
    cost = price(resources, [])
    assert cost.total("expected") == pytest.approx(2 * rate("on_demand") * HOURS_PER_MONTH)
    assert plan_drift(cost, {"chat": planned}) == []
    # A hand edit beyond it still drifts, and says what is not counted.
    (drift,) = plan_drift(cost, {"chat": planned * 0.5})
    assert "not counting $" in drift.message


# --- declarations -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        (
            {"cloud": "aws", "id": "x", "term": "5y", "kind": "instances"},
            ((0, "term"), "one of 1y, 3y"),
        ),
        (
            {"cloud": "mars", "id": "x", "term": "1y", "kind": "instances"},
            ((0, "cloud"), "one of aws, gcp, azure"),
        ),
        (
            {"cloud": "aws", "id": "x", "term": "1y", "kind": "instances", "region": "r"},
            ((0, "instanceType"), "required for an instances commitment"),
        ),
        (
            {
                "cloud": "aws",
                "id": "x",
                "term": "1y",
                "kind": "savingsPlan",
                "hourlyUsd": float("nan"),
            },
            ((0, "hourlyUsd"), "a number, 0 or more"),
        ),
        (
            {"cloud": "aws", "id": "x", "term": "1y", "kind": "instances", "extra": 1},
            ((0,), "unknown field(s) extra"),
        ),
        (
            {
                "cloud": "aws",
                "id": "x",
                "term": "1y",
                "kind": "instances",
                "region": "r",
                "instanceType": "t",
                "count": 1,
                "end": "soon",
            },
            ((0, "end"), "an ISO date (YYYY-MM-DD)"),
        ),
    ],
)
def test_a_declaration_that_is_not_a_commitment_is_named(
    entry: dict[str, Any], problem: tuple[Any, str]
) -> None:
    held, problems = parse_commitments([entry])
    assert held == [] and problem in problems


def test_a_commitments_file_round_trips_and_a_bad_one_names_file_line_and_field(
    tmp_path: Path,
) -> None:
    good = ri(2, zone="us-east-1a")
    path = tmp_path / "held.json"
    path.write_text(json.dumps({"version": 1, "commitments": [good.as_config()]}))
    assert read_commitments_file(path) == [good]
    entry = '{"cloud": "aws", "id": "x", "term": "2y", "kind": "instances"}'
    path.write_text(f'{{"version": 1,\n "commitments": [\n  {entry}]}}')
    with pytest.raises(CommitmentsFileError) as raised:
        read_commitments_file(path)
    assert raised.value.problems == [f"{path}:3: commitments[0].term: one of 1y, 3y"]
    path.write_text("[1, 2")
    with pytest.raises(CommitmentsFileError):
        read_commitments_file(path)

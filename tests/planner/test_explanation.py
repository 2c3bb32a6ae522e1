"""Why a workload cannot be placed, and --explain's candidates: the reason names the stage that
excluded the last offers."""

from __future__ import annotations

from gpufleet.planner.optimizer import Planner
from gpufleet.planner.spec_loader import parse_spec
from tests.helpers import catalog_of, make_offer, spec_text
from tests.planner.planning import H100_EFA, SERVE, TRAIN, reason


def test_no_on_demand_and_not_interruptible() -> None:
    envs = "environments:\n  dev: {allow_on_demand: false}\n"
    assert reason(TRAIN, catalog_of(make_offer()), environments=envs) == (
        "dev does not allow on-demand and the workload is not interruptible "
        "(spot needs interruptible: true)"
    )


def test_no_spot_price_and_no_on_demand() -> None:
    envs = "environments:\n  dev: {allow_on_demand: false}\n"
    catalog = catalog_of(make_offer(spot_hourly=None))
    assert reason(TRAIN + "    interruptible: true\n", catalog, environments=envs) == (
        "no offer with a spot price in allowed regions, and dev does not allow on-demand"
    )


def test_always_on_needs_on_demand_or_a_commitment() -> None:
    envs = "environments:\n  dev: {allow_on_demand: false, max_commitment: none}\n"
    assert "allows neither" in reason(SERVE, catalog_of(make_offer()), environments=envs)


def test_region_reason_names_the_allowed_regions() -> None:
    catalog = catalog_of(
        make_offer(region="us-east-1"), make_offer(region="us-west-2", zone="usw2-az1")
    )
    body = "defaults:\n  clouds: [aws]\n  regions: {aws: [us-west-2]}\n" + TRAIN.replace(
        "L4", "H100"
    )
    catalog = catalog_of(*catalog.offers, make_offer(**H100_EFA, region="us-east-1"))
    assert reason(body, catalog) == "no 1x H100 offer in allowed regions (aws: us-west-2)"


def test_explain_lists_candidates_and_pricing_models() -> None:
    catalog = catalog_of(
        make_offer(region="us-east-1", zone="use1-az1", on_demand_hourly=1.0, spot_hourly=0.3),
        make_offer(region="us-east-1", zone="use1-az2", on_demand_hourly=1.0, spot_hourly=0.35),
        make_offer(region="us-west-2", zone="usw2-az1", on_demand_hourly=1.2, spot_hourly=0.5),
    )
    spec = parse_spec(spec_text(TRAIN + "    interruptible: true\n"), "s.yaml", catalog)
    evaluation = Planner(spec, catalog).evaluate(spec.workloads[0], "prod")
    ranked = evaluation.ranked(10)
    # One row per cloud/region/instance type/pricing, cheapest zone: az2 folds into az1.
    assert [(p.offer.zone, p.pricing) for p in ranked] == [
        ("use1-az1", "spot"),
        ("usw2-az1", "spot"),
        ("use1-az1", "on_demand"),
        ("usw2-az1", "on_demand"),
    ]
    assert [p.pricing for p in evaluation.best_by_pricing()] == ["spot", "on_demand"]
    assert evaluation.best == ranked[0]

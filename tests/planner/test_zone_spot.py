"""Zone-true spot: capacity pinned to one zone is planned in a zone that offers it on spot, at
that zone's price; capacity spanning a region's zones pays the mean over those that offer it.
The brute-force oracle of ``test_optimizer`` checks optimality over random specs and catalogs;
these check the issue's case on the shipped catalog and the invariant over random specs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gpufleet.cli.main import main
from gpufleet.planner.capabilities import component_for
from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.interconnect import supports_multi_node
from gpufleet.planner.optimizer import Planner
from gpufleet.planner.pricing import DEFAULT_INTERRUPTION_OVERHEAD
from gpufleet.planner.rates import RateCard
from gpufleet.planner.spec_loader import SpecError, parse_spec
from gpufleet.stacks.placement_parts import base_need
from tests.helpers import catalog_of, make_offer, spec_text
from tests.planner.planning import H100_EFA, placement
from tests.random_specs import AUTO_GPUS, workload_yaml

CATALOG = load_catalog()

TWO_NODE_SPOT_H100 = """
defaults:
  clouds: [aws]
workloads:
  - name: pretrain
    kind: training
    gpu: {name: H100, count: 8}
    nodes: 2
    interruptible: true
    hours_per_month: 300
"""


def test_a_two_node_spot_job_is_planned_in_the_cheapest_zone_that_offers_it() -> None:
    """The issue's case, on the shipped catalog: the job's placement group holds it in one
    zone, so it is priced at a zone's own spot price, in the cheapest zone that has one —
    the brute-force optimum over every zone of every region."""
    p = placement(TWO_NODE_SPOT_H100, CATALOG)
    assert p.pricing == "spot" and p.spot_scope == "zone"
    assert p.offer.spot_hourly is not None
    zones = [
        o
        for o in CATALOG.filter(cloud="aws", gpu="H100")
        if o.gpu_count == 8
        and o.spot_hourly is not None
        and supports_multi_node("aws", o.instance_type)
    ]
    cheapest = min(o.spot_hourly for o in zones if o.spot_hourly is not None)
    assert p.offer.spot_hourly == cheapest
    factor = 1 + DEFAULT_INTERRUPTION_OVERHEAD["aws"] * 2
    assert p.monthly_usd == pytest.approx(cheapest * factor * 2 * 300)
    # A zone with no spot offer is never where it runs, whatever its region's mean says.
    without = [o for o in CATALOG.filter(cloud="aws", gpu="H100") if o.spot_hourly is None]
    assert without and (p.offer.region, p.offer.zone) not in {(o.region, o.zone) for o in without}


ZONED = [
    # The region's mean (1.0) is below zone b's own price, and zone a has no spot at all.
    make_offer(zone="use1-az1", spot_hourly=None, **H100_EFA, on_demand_hourly=10.0),
    make_offer(zone="use1-az2", spot_hourly=1.5, **H100_EFA, on_demand_hourly=10.0),
    make_offer(zone="use1-az3", spot_hourly=0.5, **H100_EFA, on_demand_hourly=10.0),
]


def test_pinned_capacity_pays_its_zone_and_spanning_capacity_the_mean() -> None:
    catalog = catalog_of(*ZONED)
    job = placement(TWO_NODE_SPOT_H100, catalog)
    assert (job.offer.zone, job.spot_scope, job.spot_zones) == ("use1-az3", "zone", 1)
    assert job.hourly_usd == pytest.approx(0.5 * 2 * 1.2)
    # One node: a fleet over the region's subnets, at the mean of the two zones with spot.
    one = placement(TWO_NODE_SPOT_H100.replace("nodes: 2", "nodes: 1"), catalog)
    assert (one.spot_scope, one.spot_zones) == ("region", 2)
    assert one.hourly_usd == pytest.approx(1.0 * 1.1)


def test_explain_says_where_spot_is_priced(tmp_path: Path) -> None:
    runner = CliRunner()
    pinned_spec = tmp_path / "spec.yaml"
    pinned_spec.write_text(spec_text(TWO_NODE_SPOT_H100), encoding="utf-8")
    spanning_spec = tmp_path / "one.yaml"
    spanning_spec.write_text(
        spec_text(TWO_NODE_SPOT_H100.replace("nodes: 2", "nodes: 1")), encoding="utf-8"
    )
    pinned = runner.invoke(main, ["plan", str(pinned_spec), "--explain", "pretrain"])
    spanning = runner.invoke(main, ["plan", str(spanning_spec), "--explain", "pretrain"])
    as_json = runner.invoke(main, ["plan", str(pinned_spec), "--format", "json"])
    assert pinned.exit_code == 0, pinned.output
    assert "spot priced in zone" in pinned.output and "runs in that one zone" in pinned.output
    assert spanning.exit_code == 0, spanning.output
    assert "spot priced at the" in spanning.output
    assert "may run in any" in spanning.output
    (env,) = json.loads(as_json.output)["environments"]
    assert env["workloads"][0]["spot_priced_in"] == "zone"


workload_strategy = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["training", "batch", "inference"]),
        "gpu": st.sampled_from(AUTO_GPUS),
        "count": st.sampled_from([1, 8]),
        "interruptible": st.just(True),
        "hours": st.sampled_from([None, 24, 300]),
        "schedule": st.just(None),
        "nodes": st.sampled_from([1, 2, 4]),
        "replicas": st.sampled_from([(1, 1), (1, 4), (2, 8)]),
        "always_on": st.booleans(),
        "cloud": st.sampled_from([None, "aws", "gcp", "azure"]),
        "managed": st.sampled_from([None, None, "sagemaker", "azureml"]),
    }
)


@settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(st.lists(workload_strategy, min_size=1, max_size=4))
def test_no_plan_puts_pinned_spot_capacity_in_a_zone_without_the_offer(
    workloads: list[dict[str, Any]],
) -> None:
    """Over random specs on the shipped catalog: spot capacity is priced in its zone exactly
    when the component that builds it runs in one zone, and then that zone offers it on spot
    at the price the plan uses; spanning capacity pays the mean over the zones that do."""
    text = (
        "version: 1\nproject: zones\nowner: o@acme.example\ncost_center: cc\n"
        "environments:\n  prod: {}\nworkloads:\n"
        + "".join(workload_yaml(i, w) for i, w in enumerate(workloads))
    )
    try:
        spec = parse_spec(text, "zones.yaml", CATALOG)
    except SpecError:
        assume(False)
        return
    rates = RateCard(CATALOG, Planner(spec, CATALOG).assumptions)
    plan = Planner(spec, CATALOG).plan_environment("prod")
    for p in plan.placements:
        if p.pricing == "spot":
            built_by = component_for(p.cloud, base_need(p), "spot", p.runs_on)
        elif p.burst is not None and p.burst.pricing == "spot":
            built_by = component_for(p.cloud, "fleet", "spot")
        else:
            assert p.spot_scope is None
            continue
        assert p.spot_scope == built_by.spot_scope, (p.name, built_by.name)
        if p.spot_scope == "zone":
            assert p.offer.spot_hourly is not None, f"{p.name}: {p.offer.location}"
        else:
            assert rates.spot(p.offer) is not None
            assert p.spot_zones >= 1

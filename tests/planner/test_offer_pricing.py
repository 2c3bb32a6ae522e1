"""What an offer costs a workload: by hand on tiny catalogs through the planner (spot at its
expected cost, on-demand, commitments for always-on capacity and bursts, replicas per
environment, SageMaker markups, the price cap), and the functions themselves: sizing, the offer
pricer, and a bucket bound that never exceeds what the bucket's offers cost (hypothesis)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpufleet.clouds import CLOUDS
from gpufleet.planner.catalog import Catalog, Offer
from gpufleet.planner.gpu_need import resolve_gpu_need
from gpufleet.planner.offer_pricing import (
    OfferBucket,
    Sizing,
    bucket_lower_bound,
    offer_pricer,
    sizer,
    sizing,
    to_placement,
)
from gpufleet.planner.pricing import SAGEMAKER_MARKUP, resolve_assumptions
from gpufleet.planner.rates import RateCard
from gpufleet.planner.spec import EnvironmentLimits, Workload
from gpufleet.pricing_models import HOURS_PER_MONTH, PRICING_ORDER, TERMS_UP_TO
from gpufleet.workload_kinds import KINDS
from tests.helpers import catalog_of, make_offer
from tests.planner.planning import H100_EFA, SERVE, TRAIN, placement, reason


def test_on_demand_unless_interruptible() -> None:
    catalog = catalog_of(make_offer(on_demand_hourly=1.0, spot_hourly=0.3))
    p = placement(TRAIN, catalog)
    assert (p.pricing, p.monthly_usd) == ("on_demand", pytest.approx(100.0))
    p = placement(TRAIN + "    interruptible: true\n", catalog)
    # AWS spot priced with its 10% interruption overhead: 0.3 * 1.1 * 100 h.
    assert (p.pricing, p.monthly_usd) == ("spot", pytest.approx(33.0))
    assert p.baseline_monthly_usd == pytest.approx(100.0)
    assert p.savings_usd == pytest.approx(67.0)


def test_spot_overhead_scales_with_nodes_and_can_lose_to_on_demand() -> None:
    offer = make_offer(**H100_EFA, on_demand_hourly=10.0, spot_hourly=7.0)
    body = TRAIN.replace("{name: L4}", "{name: H100, count: 8}") + "    interruptible: true\n"
    one = placement(body, catalog_of(offer))
    assert (one.pricing, one.hourly_usd) == ("spot", pytest.approx(7.7))
    # Four nodes: any of them being reclaimed stops the job, 1 + 0.1 x 4 = 1.4 -> 9.8 per node.
    four = placement(body + "    nodes: 4\n", catalog_of(offer))
    assert (four.pricing, four.instances, four.hourly_usd) == ("spot", 4, pytest.approx(39.2))
    # Five nodes: 7.0 x 1.5 = 10.5 > 10.0 on-demand.
    five = placement(body + "    nodes: 5\n", catalog_of(offer))
    assert (five.pricing, five.hourly_usd) == ("on_demand", pytest.approx(50.0))


def test_spec_overrides_interruption_overhead() -> None:
    catalog = catalog_of(make_offer(on_demand_hourly=1.0, spot_hourly=0.3))
    body = "defaults:\n  interruption_overhead: {aws: 0.5}\n" + TRAIN + "    interruptible: true\n"
    assert placement(body, catalog).hourly_usd == pytest.approx(0.45)


def test_always_on_compares_on_demand_with_commitments() -> None:
    catalog = catalog_of(make_offer(on_demand_hourly=1.0, spot_hourly=0.1))
    p = placement(SERVE, catalog)
    # Base: 2 replicas x 730 h at the 3-year price; burst: 3 replicas x 100 h on-demand.
    assert p.pricing == "reserved_3y"
    assert p.hourly_usd == pytest.approx(2 * 0.45)
    assert p.burst is not None
    assert (p.burst.instances, p.burst.pricing) == (3, "on_demand")
    assert p.monthly_usd == pytest.approx(2 * 0.45 * 730 + 3 * 1.0 * 100)
    assert p.baseline_monthly_usd == pytest.approx(2 * 730 + 3 * 100)
    assert p.total_gpus == 5


@pytest.mark.parametrize(
    ("commitment", "pricing", "hourly"),
    [("3y", "reserved_3y", 0.45), ("1y", "reserved_1y", 0.65), ("none", "on_demand", 1.0)],
)
def test_max_commitment(commitment: str, pricing: str, hourly: float) -> None:
    catalog = catalog_of(make_offer(on_demand_hourly=1.0, spot_hourly=0.1))
    envs = f"environments:\n  prod: {{max_commitment: {commitment}}}\n"
    p = placement(SERVE, catalog, environments=envs)
    assert (p.pricing, p.hourly_usd) == (pricing, pytest.approx(2 * hourly))


def test_always_on_base_never_runs_on_spot_but_its_burst_may() -> None:
    catalog = catalog_of(make_offer(on_demand_hourly=1.0, spot_hourly=0.1))
    p = placement(SERVE + "    interruptible: true\n", catalog)
    assert p.pricing == "reserved_3y"
    assert p.burst is not None and p.burst.pricing == "spot"
    # Burst replicas are independent: one replica's overhead, not scaled by replica count.
    assert p.burst.hourly_usd == pytest.approx(3 * 0.1 * 1.1)


def test_spec_overrides_commitment_discounts() -> None:
    catalog = catalog_of(make_offer(on_demand_hourly=1.0))
    body = "defaults:\n  commitment_discounts: {aws: {reserved_3y: 0.7}}\n" + SERVE
    assert placement(body, catalog).hourly_usd == pytest.approx(2 * 0.3)


def test_bursty_inference_runs_max_replicas_for_its_hours() -> None:
    catalog = catalog_of(make_offer(on_demand_hourly=1.0))
    p = placement(SERVE.replace("    always_on: true\n", ""), catalog)
    assert (p.pricing, p.instances, p.burst) == ("on_demand", 5, None)
    assert p.monthly_usd == pytest.approx(5 * 100)


def test_replicas_scale_down_and_cap_per_environment() -> None:
    catalog = catalog_of(make_offer(on_demand_hourly=1.0))
    staging = "environments:\n  qa: {replica_scale: 0.5, max_replicas: 2}\n"
    p = placement(SERVE, catalog, environments=staging)
    # SERVE runs 2..5 replicas: half is 1..3 (rounded up), capped at 2.
    assert (p.instances, p.burst.instances if p.burst else 0) == (1, 1)


def test_max_price_per_hour() -> None:
    catalog = catalog_of(make_offer(**H100_EFA, on_demand_hourly=98.0, spot_hourly=25.0))
    body = TRAIN.replace("{name: L4}", "{name: H100, count: 8}") + "    max_price_per_hour: 20\n"
    assert reason(body, catalog) == (
        "no 8x H100 offer under max_price_per_hour 20 in allowed regions"
    )
    # The cap applies to the list price of the pricing model used: spot at 25 is over it too,
    # even though its expected cost with overhead is what gets compared.
    assert reason(body + "    interruptible: true\n", catalog).startswith("no 8x H100 offer under")
    p = placement(
        body.replace("max_price_per_hour: 20", "max_price_per_hour: 30")
        + "    interruptible: true\n",
        catalog,
    )
    assert p.pricing == "spot"


def test_sagemaker_uses_ml_instances_at_sagemaker_prices() -> None:
    catalog = catalog_of(
        make_offer(
            instance_type="g5.xlarge", gpu_name="A10G", on_demand_hourly=1.0, spot_hourly=0.3
        ),
        make_offer(
            instance_type="gr6.4xlarge", gpu_name="A10G", on_demand_hourly=0.5, spot_hourly=0.1
        ),
        make_offer(
            cloud="gcp",
            region="us-central1",
            zone="us-central1-a",
            instance_type="g2-standard-4",
            gpu_name="A10G",
            on_demand_hourly=0.1,
        ),
    )
    body = (
        TRAIN.replace("{name: L4}", "{name: A10G}")
        + "    managed: sagemaker\n    interruptible: true\n"
    )
    p = placement(body, catalog)
    assert (p.instance_type, p.pricing, p.managed) == ("ml.g5.xlarge", "spot", "sagemaker")
    markup = SAGEMAKER_MARKUP["g5"]
    assert p.hourly_usd == pytest.approx(0.3 * markup * 1.1)
    assert p.baseline_monthly_usd == pytest.approx(1.0 * markup * 100)


# --- the functions themselves --------------------------------------------------------------------

ASSUMPTIONS = resolve_assumptions(None, {})


def rates_for(*offers: Offer) -> RateCard:
    return RateCard(Catalog(offers), ASSUMPTIONS)


def workload(**fields: Any) -> Workload:
    return Workload.model_validate({"name": "w", "kind": "batch", "gpu": {"name": "L4"}, **fields})


def size_on(work: Workload, limits: EnvironmentLimits) -> Callable[[Offer], Sizing]:
    """The workload's size on an offer, packed as the planner packs it."""
    return sizer(work, sizing(work, limits), resolve_gpu_need(work, limits).options)


def test_sizing_of_jobs_and_serving() -> None:
    limits = EnvironmentLimits()
    assert sizing(workload(nodes=3, hours_per_month=50), limits) == Sizing(3, 0, 50, 50, False)
    serving = workload(kind="inference", always_on=True, replicas={"min": 2, "max": 5})
    assert sizing(serving, limits) == Sizing(2, 3, HOURS_PER_MONTH, HOURS_PER_MONTH, True)
    halved = EnvironmentLimits(replica_scale=0.5, max_replicas=2)
    assert sizing(serving, halved) == Sizing(1, 1, HOURS_PER_MONTH, HOURS_PER_MONTH, True)
    bursty = workload(kind="inference", replicas={"min": 1, "max": 4}, hours_per_month=100)
    assert sizing(bursty, limits) == Sizing(4, 0, 100, 100, False)
    peaks = workload(
        kind="inference", always_on=True, replicas={"min": 2, "max": 5}, hours_per_month=120
    )
    assert sizing(peaks, limits).baseline_hours == 2 * HOURS_PER_MONTH + 3 * 120


def test_scheduled_capacity_runs_for_the_schedules_hours() -> None:
    limits = EnvironmentLimits()
    business = {
        "time_zone": "Europe/Berlin",
        "windows": [{"days": "weekdays", "start": "08:00", "end": "20:00"}],
    }
    hours = HOURS_PER_MONTH * 60 / 168  # 12 h x 5 days of the week's 168 h

    def shape(size: Sizing) -> tuple[int, int, float, float, bool]:
        return (
            size.instances,
            size.burst_instances,
            round(size.base_hours, 6),
            round(size.burst_hours, 6),
            size.always_on_base,
        )

    job = workload(nodes=2, schedule=business)
    assert shape(sizing(job, limits)) == (2, 0, round(hours, 6), round(hours, 6), False)
    # Business-hours serving: no base at night (replicas.min 0), the schedule for the rest.
    serving = workload(
        kind="inference", always_on=True, replicas={"min": 0, "max": 4}, schedule=business
    )
    assert shape(sizing(serving, limits)) == (4, 0, round(hours, 6), round(hours, 6), False)
    # A committed base all month, the burst to max in the windows.
    based = workload(
        kind="inference", always_on=True, replicas={"min": 1, "max": 4}, schedule=business
    )
    assert shape(sizing(based, limits)) == (1, 3, HOURS_PER_MONTH, round(hours, 6), True)


def test_offer_pricer_gives_a_candidate_per_allowed_pricing_model() -> None:
    offer = make_offer(on_demand_hourly=2.0, spot_hourly=0.5)
    serving = workload(kind="inference", always_on=True, replicas={"min": 1, "max": 1})
    size = size_on(serving, EnvironmentLimits())
    rates = rates_for(offer)
    price = offer_pricer(serving, EnvironmentLimits(), rates, size, {id(offer): 0})
    candidates = price(offer) or []
    pricings = [PRICING_ORDER[c[5]] for c in sorted(candidates)]
    # Always-on: never spot; the 3-year term is the cheapest.
    assert pricings == ["reserved_3y", "reserved_1y", "on_demand"]
    placement_ = to_placement(serving, min(candidates), size, rates)
    assert placement_.monthly_usd == pytest.approx(2.0 * (1 - 0.55) * HOURS_PER_MONTH)
    no_on_demand = EnvironmentLimits(allow_on_demand=False, max_commitment="none")
    assert offer_pricer(serving, no_on_demand, rates, size, {id(offer): 0})(offer) is None
    capped = workload(max_price_per_hour=1.0)
    size = size_on(capped, EnvironmentLimits())
    assert offer_pricer(capped, EnvironmentLimits(), rates, size, {id(offer): 0})(offer) == []


@st.composite
def priced_buckets(draw: st.DrawFn) -> tuple[Workload, EnvironmentLimits, list[Offer]]:
    kind = draw(st.sampled_from(KINDS))
    fields: dict[str, Any] = {
        "kind": kind,
        "interruptible": draw(st.booleans()),
        "hours_per_month": draw(st.sampled_from([1, 100, HOURS_PER_MONTH])),
    }
    if kind == "inference":
        low = draw(st.integers(0, 3))
        fields["replicas"] = {"min": low, "max": draw(st.integers(max(low, 1), 6))}
        fields["always_on"] = low > 0 and draw(st.booleans())
    else:
        fields["nodes"] = draw(st.integers(1, 4))
    if draw(st.booleans()):
        fields["max_price_per_hour"] = draw(st.sampled_from([0.2, 1.0, 5.0]))
    limits = EnvironmentLimits(
        allow_on_demand=draw(st.booleans()),
        max_commitment=draw(st.sampled_from(list(TERMS_UP_TO))),
        replica_scale=draw(st.sampled_from([0.5, 1.0])),
    )
    fields["gpu"] = {"name": "L4", "count": draw(st.sampled_from([1, 2]))}
    if draw(st.booleans()):
        fields["max_replicas_per_instance"] = draw(st.integers(1, 3))
    if kind == "training":
        fields.pop("max_replicas_per_instance", None)
    cloud = draw(st.sampled_from(CLOUDS))
    prices = st.floats(0.05, 20.0, allow_nan=False)
    # One bucket: one GPU count, which decides how replicas or workers pack.
    gpu_count = draw(st.sampled_from([2, 4, 8]))
    offers = [
        make_offer(
            cloud=cloud,
            gpu_count=gpu_count,
            zone=f"z{i}",
            on_demand_hourly=on_demand,
            spot_hourly=draw(st.none() | st.floats(0.01, on_demand)),
        )
        for i, on_demand in enumerate(draw(st.lists(prices, min_size=1, max_size=5)))
    ]
    return workload(**fields), limits, offers


@settings(max_examples=300, deadline=None)
@given(priced_buckets())
def test_a_buckets_bound_never_exceeds_what_its_offers_cost(
    case: tuple[Workload, EnvironmentLimits, list[Offer]],
) -> None:
    """The search skips a bucket whose bound is above the best found: the bound must be a true
    lower bound on every candidate of its offers, and None only when none can be priced."""
    work, limits, offers = case
    size = size_on(work, limits)
    rates = rates_for(*offers)
    bucket = OfferBucket([])
    for offer in offers:
        bucket.add(offer, rates)
    bound = bucket_lower_bound(work, limits, rates, size)(bucket)
    price = offer_pricer(work, limits, rates, size, {id(o): i for i, o in enumerate(offers)})
    costs = [c[0] for offer in offers for c in price(offer) or ()]
    if bound is None:
        assert costs == []
    else:
        assert all(bound <= cost * (1 + 1e-9) for cost in costs)

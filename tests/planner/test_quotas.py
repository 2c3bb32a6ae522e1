"""The account's quotas in the planner: which quota a machine counts against, and over random
specs and quotas, a plan made with ``--respect-quotas`` never puts more on a quota than is
free, counting every workload it placed."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.optimizer import Planner
from gpufleet.planner.quotas import (
    ANY_MACHINE,
    Market,
    Quota,
    QuotaBook,
    aws_family,
    aws_quota_families,
    demand,
    gcp_metric,
    machine_covers,
    market_of,
)
from gpufleet.planner.spec_loader import SpecError, parse_spec
from tests.helpers import spec_text
from tests.random_specs import AUTO_GPUS, workload_yaml

CATALOG = load_catalog()


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("Running On-Demand P instances", ("on_demand", {"p"})),
        ("Running On-Demand G and VT instances", ("on_demand", {"g", "vt"})),
        ("All G and VT Spot Instance Requests", ("spot", {"g", "vt"})),
        (
            "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances",
            ("on_demand", {"a", "c", "d", "h", "i", "m", "r", "t", "z"}),
        ),
        ("All Inf Spot Instance Requests", ("spot", {"inf"})),
        ("All P4, P3 and P2 Spot Instance Requests", ("spot", {"p4", "p3", "p2"})),
        ("All P5 Spot Instance Requests", ("spot", {"p5"})),
        ("Number of EIPs - VPC EIPs", None),
    ],
)
def test_an_ec2_quota_name_says_the_families_it_covers(name: str, found: Any) -> None:
    result = aws_quota_families(name)
    assert (None if result is None else (result[0], set(result[1]))) == found


def test_machines_name_their_quota() -> None:
    assert aws_family("p5.48xlarge") == "p5" and aws_family("ml.g5.xlarge") == "g5"
    assert aws_family("inf2.xlarge") == "inf2" and aws_family("g4dn.xlarge") == "g4"
    # A quota covers a family by letters or with its generation; Gr6 counts as G.
    p5_spot = Quota("aws", "r", "All P5 ...", "spot", "vcpus", frozenset({"p5"}), 8, None)
    older = Quota(
        "aws", "r", "All P4, P3 and P2 ...", "spot", "vcpus", frozenset({"p4", "p3"}), 8, None
    )
    g = Quota(
        "aws",
        "r",
        "Running On-Demand G and VT ...",
        "on_demand",
        "vcpus",
        frozenset({"g", "vt"}),
        8,
        None,
    )
    assert p5_spot.applies("aws", "r", aws_family("p5.48xlarge"), "spot")
    assert not older.applies("aws", "r", aws_family("p5.48xlarge"), "spot")
    assert older.applies("aws", "r", aws_family("p4d.24xlarge"), "spot")
    assert g.applies("aws", "r", aws_family("gr6.4xlarge"), "on_demand")
    assert g.applies("aws", "r", aws_family("vt1.3xlarge"), "on_demand")
    assert not g.applies("aws", "r", aws_family("g6.xlarge"), "spot")
    assert machine_covers("gcp", "a3-highgpu-8g", "H100") == "nvidia-h100-80gb"
    assert machine_covers("gcp", "n1-standard-8", "T4") == "nvidia-tesla-t4"
    assert gcp_metric("nvidia-tesla-t4", "spot") == "PREEMPTIBLE_NVIDIA_T4_GPUS"
    assert gcp_metric("nvidia-a100-80gb", "on_demand") == "NVIDIA_A100_80GB_GPUS"
    assert market_of("reserved_3y") == "on_demand"


REGIONS = {"aws": ["us-east-1", "us-west-2"], "gcp": ["us-central1"], "azure": ["eastus"]}


@st.composite
def quota_books(draw: st.DrawFn) -> QuotaBook:
    quotas: list[Quota] = []
    for region in REGIONS["aws"]:
        for families in (frozenset({"g", "vt"}), frozenset({"p"})):
            for market in ("on_demand", "spot"):
                limit = draw(st.sampled_from([0, 48, 96, 400, 2000]))
                quotas.append(Quota("aws", region, "q", market, "vcpus", families, limit, None))
    for accelerator in ("nvidia-tesla-t4", "nvidia-l4", "nvidia-tesla-a100", "nvidia-h100-80gb"):
        for market in ("on_demand", "spot"):
            limit, used = draw(st.sampled_from([0, 8, 32])), draw(st.sampled_from([0, 4]))
            quotas.append(
                Quota(
                    "gcp", "us-central1", "m", market, "gpus", frozenset({accelerator}), limit, used
                )
            )
    spot = draw(st.sampled_from([0, 24, 200]))
    quotas.append(
        Quota(
            "azure",
            "eastus",
            "lowPriorityCores",
            "spot",
            "vcpus",
            frozenset({ANY_MACHINE}),
            spot,
            0,
        )
    )
    return QuotaBook(tuple(quotas))


workload_strategy = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["training", "batch", "inference"]),
        "gpu": st.sampled_from(AUTO_GPUS),
        "count": st.sampled_from([1, 4, 8]),
        "interruptible": st.booleans(),
        "hours": st.sampled_from([None, 100]),
        "schedule": st.just(None),
        "nodes": st.sampled_from([1, 2]),
        "replicas": st.sampled_from([(1, 1), (1, 4), (2, 2)]),
        "always_on": st.booleans(),
        "cloud": st.sampled_from([None, "aws", "gcp", "azure"]),
    }
)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(st.lists(workload_strategy, min_size=1, max_size=5), quota_books())
def test_a_plan_within_quotas_never_overruns_one(
    workloads: list[dict[str, Any]], book: QuotaBook
) -> None:
    text = (
        "version: 1\nproject: q\nowner: o@acme.example\ncost_center: cc\n"
        "environments:\n  prod: {}\n  dev: {allow_on_demand: false}\n"
        "defaults:\n  clouds: [aws, gcp, azure]\n"
        "  regions: {aws: [us-east-1, us-west-2], gcp: [us-central1], azure: [eastus]}\n"
        "workloads:\n" + "".join(workload_yaml(i, w) for i, w in enumerate(workloads))
    )
    try:
        spec = parse_spec(text, "q.yaml", CATALOG)
    except SpecError:
        assume(False)
        return
    free_plan = Planner(spec, CATALOG).plan()
    plan = Planner(spec, CATALOG, book).plan()
    for env, free_env in zip(plan.environments, free_plan.environments, strict=True):
        used = [0.0] * len(book.quotas)
        for p in env.placements:
            if p.managed is not None:
                continue  # a managed service's capacity counts against its own quotas
            covered = machine_covers(p.cloud, p.offer.instance_type, p.offer.gpu_name)
            uses: list[tuple[Market, int]] = [(market_of(p.pricing), p.instances)]
            if p.burst is not None:
                uses.append((market_of(p.burst.pricing), p.burst.instances))
            for market, instances in uses:
                amount = demand(p.cloud, p.offer.vcpus, p.offer.gpu_count, instances)
                for i, q in enumerate(book.quotas):
                    if q.applies(p.cloud, p.offer.region, covered, market):
                        used[i] += amount
        for i, q in enumerate(book.quotas):
            # (A quota already overrun by what runs elsewhere takes nothing more.)
            assert used[i] == 0 or used[i] <= q.free + 1e-9, (env.environment, q, used[i])
        # Quotas only take options away: nothing is cheaper than without them.
        for p in env.placements:
            before = next(f for f in free_env.placements if f.name == p.name)
            assert p.monthly_usd >= before.monthly_usd - 1e-6


def _aws_quotas(spot: float, on_demand: float) -> QuotaBook:
    limits: dict[Market, float] = {"spot": spot, "on_demand": on_demand}
    return QuotaBook(
        tuple(
            Quota("aws", region, "q", market, "vcpus", frozenset({"g", "vt"}), limit, None)
            for region in ("us-east-1", "us-west-2")
            for market, limit in limits.items()
        )
    )


SERVING = """
defaults:
  clouds: [aws]
  regions: {aws: [us-east-1, us-west-2]}
workloads:
  - name: chat
    kind: inference
    gpu: {name: L4, count: 1}
    always_on: true
    replicas: {min: 2, max: 6}
    hours_per_month: 120
    interruptible: true
"""


def test_a_burst_that_does_not_fit_on_spot_bursts_on_demand() -> None:
    """Under quotas the cheapest burst is not the only one tried: with no spot vCPUs, the same
    base bursts on-demand, as it would were the work not interruptible."""
    spec = parse_spec(spec_text(SERVING), "s.yaml", CATALOG)
    (free,) = Planner(spec, CATALOG).plan().environments[0].placements
    assert free.burst is not None and free.burst.pricing == "spot"
    (within,) = Planner(spec, CATALOG, _aws_quotas(0, 10_000)).plan().environments[0].placements
    steady = parse_spec(
        spec_text(SERVING.replace("interruptible: true", "interruptible: false")), "s.yaml", CATALOG
    )
    (expected,) = Planner(steady, CATALOG).plan().environments[0].placements
    assert within.burst is not None and within.burst.pricing == "on_demand"
    assert (within.instance_type, within.monthly_usd) == (
        expected.instance_type,
        pytest.approx(expected.monthly_usd),
    )


def test_a_mirrored_choice_that_does_not_fit_is_planned_again_within_the_quotas() -> None:
    text = spec_text(
        """
defaults:
  clouds: [aws, gcp]
workloads:
  - {name: batch, kind: batch, gpu: {name: L4}, interruptible: true, hours_per_month: 50}
""",
        "environments:\n  prod: {}\n  dev: {mirror: prod}\n",
    )
    spec = parse_spec(text, "s.yaml", CATALOG)
    free = Planner(spec, CATALOG).plan()
    chosen = free.environments[0].placements[0]
    # No quota for that machine in any region: prod goes elsewhere, and dev, whose mirror
    # pin (chosen without quotas) is that machine, is planned again rather than unplaced.
    covered = machine_covers(chosen.cloud, chosen.offer.instance_type, chosen.offer.gpu_name)
    book = QuotaBook(
        tuple(
            Quota(
                chosen.cloud,
                region,
                "none",
                None,
                "gpus" if chosen.cloud == "gcp" else "vcpus",
                frozenset({covered or ANY_MACHINE}),
                0,
                0,
            )
            for region in CATALOG.regions(chosen.cloud)
        )
    )
    plan = Planner(spec, CATALOG, book).plan()
    for env in plan.environments:
        assert not env.unplaced, (env.environment, env.unplaced)
        (placed,) = env.placements
        assert placed.offer.instance_type != chosen.offer.instance_type

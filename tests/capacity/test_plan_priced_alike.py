"""The planner and the cost engine price alike: every placement of the example plan, priced by
the planner, and its generated stack's resources, priced by the engine for the hours the plan
assumes, agree to the cent.

The hours are the plan's (its ``hours_per_month``, spot's interruption overhead as extra hours)
because the stacks do not follow them yet: until they do, the engine's own expected figure is
the stacks' sizes all month. What this pins is everything else: which machine, how many, which
region's rate, spot / on-demand / commitment, SageMaker's markup.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st

from gpufleet.capacity.cost_engine import StackCost, Usage, UsageModel, price_stack
from gpufleet.capacity.stack_capacity import StackCapacity
from gpufleet.capacity.stack_resource import stack_resources
from gpufleet.capacity.zone_names import NO_ZONE_NAMES
from gpufleet.cli.main import main
from gpufleet.engine.analyzer_resources import from_capture
from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.optimizer import Planner
from gpufleet.planner.plan import EnvironmentPlan, Placement
from gpufleet.planner.pricing import PricingAssumptions
from gpufleet.planner.rates import shipped_rate_card
from gpufleet.planner.spec import WorkloadSpec
from gpufleet.planner.spec_loader import SpecError, load_spec, parse_spec
from gpufleet.policies.stack_limits import limits_in
from gpufleet.tag_keys import WORKLOAD
from gpufleet.workload_kinds import KINDS
from tests.helpers import EXAMPLE, EXAMPLE_ENVS, ROOT
from tests.random_specs import AUTO_GPUS, workload_yaml
from tests.stack_captures import capture_generated


def plan_hours(plan: EnvironmentPlan, assumptions: PricingAssumptions) -> UsageModel:
    """Each resource's hours as the plan prices its part: the base for the placement's hours,
    a burst (built by the ``<workload>-burst`` component, or on GCP as the second version of
    the base's group) for the burst's, spot with its interruption overhead."""
    placements = {p.name: p for p in plan.placements}

    def hours_of(placement: Placement, burst: bool) -> float:
        if burst:
            assert placement.burst is not None
            hours, pricing, nodes = placement.burst.hours_per_month, placement.burst.pricing, 1
        else:
            hours, pricing = placement.hours_per_month, placement.pricing
            nodes = 1 if placement.kind == "inference" else placement.instances
        # Scheduled capacity runs its windows and no longer: no re-run overhead is planned.
        if pricing == "spot" and placement.hours_model != "schedule":
            hours *= assumptions.spot_multiplier(placement.cloud, nodes)
        # An Azure ML cluster's idle time-out after each run, which the plan bills beside.
        return hours if burst else hours + placement.idle_hours

    def usage(item: StackCapacity, tags: Mapping[str, str]) -> Usage:
        # The workload tag says whose it is (a job template, which takes no tags, is its
        # workload's component); a burst is built by the ``<workload>-burst`` component (the
        # stack program's rule).
        parent = (item.resource.parent or "").split("::")
        from_component = len(parent) == 4 and parent[2].startswith("gpufleet:")
        component = parent[-1] if from_component else item.resource.name
        placement: Placement = placements[tags.get(WORKLOAD, component)]
        footprint, share = item.footprint, item.footprint.fixed_share
        if share is not None:
            # The base's version all its hours, the burst's above it for the burst's.
            assert share.max_units is not None and footprint.max_units is not None
            return Usage(
                share.max_units,
                hours_of(placement, burst=False),
                "the plan's hours",
                footprint.max_units - share.max_units,
                hours_of(placement, burst=True),
            )
        burst = component == f"{placement.name}-burst"
        return Usage(footprint.max_units, hours_of(placement, burst), "the plan's hours")

    return usage


def assert_priced_alike(spec: Path, project: Path, env: str) -> None:
    catalog = load_catalog()
    planner = Planner(load_spec(spec, catalog), catalog)
    plan = planner.plan_environment(env)
    capture, setup = capture_generated(project, env)
    limits = limits_in(setup.config)
    # The engine's rates come from the stack (its commitment discounts), not from the planner.
    rates = shipped_rate_card(limits.commitment_discounts if limits else None)
    cost = price_stack(
        stack_resources(from_capture(capture)),
        rates,
        usage=plan_hours(plan, planner.assumptions),
        zones=limits.zones if limits else NO_ZONE_NAMES,
    )
    engine = {w.name: w for w in cost.workloads}
    assert sorted(engine) == sorted(p.name for p in plan.placements)
    for placement in plan.placements:
        lines = engine[placement.name].resources
        assert all(r.unpriced is None and not r.estimated for r in lines), lines
        priced = sum(r.expected.monthly_usd or 0.0 for r in lines)
        # Until a commitment is held, its reservation bills on-demand: the plan says how much
        # more; with the commitments the plan assumes, the stack prices at the plan.
        until_held = placement.monthly_usd + placement.commitment_saving_usd
        assert priced == pytest.approx(until_held, abs=0.01), placement.name
        awaiting = sum(r.uncommitted_usd for r in lines)
        assert priced - awaiting == pytest.approx(placement.monthly_usd, abs=0.01)


def generated_project(root: Path, spec_text: str, site: str, env: str = "prod") -> Path:
    """A project in ``root`` whose ``env`` stack gpufleet generated from ``spec_text``, with
    ``site`` settings added; the stack config file."""
    (root / "spec.yaml").write_text(spec_text)
    (root / "Pulumi.yaml").write_text(
        f"name: gen\nruntime: python\nmain: {ROOT / 'stacks'}\nstackConfigDir: stacks\n"
    )
    args = ["generate", str(root / "spec.yaml"), "--env", env]
    made = CliRunner().invoke(main, [*args, "--stacks-dir", str(root / "stacks")])
    assert made.exit_code == 0, made.output
    stack_file = root / "stacks" / f"Pulumi.{env}.yaml"
    stack_file.write_text(stack_file.read_text() + site)
    return stack_file


def part_scalings(stack_file: Path) -> dict[str, list[tuple[str, str]]]:
    """Each workload's parts in a generated stack config: (component, scaling)."""
    return {
        w["name"]: [(part["component"], part["scaling"]) for part in w["parts"]]
        for w in yaml.safe_load(stack_file.read_text())["config"]["gpufleet:workloads"]
    }


def assert_costs_its_plan(
    spec: WorkloadSpec, project: Path, env: str, *, bought: frozenset[str] = frozenset()
) -> StackCost:
    """The invariant of issue 16, with the engine's own usage model: each workload's expected
    monthly cost is its planned cost within 1%. ``bought``: the clouds whose stack buys the
    commitments its plan assumes (``site:gcp`` ``purchaseCommitments``): priced at the plan's
    figure from the start, with nothing awaiting a purchase."""
    plan = Planner(spec, load_catalog()).plan_environment(env)
    capture, setup = capture_generated(project, env)
    limits = limits_in(setup.config)
    rates = shipped_rate_card(limits.commitment_discounts if limits else None)
    cost = price_stack(
        stack_resources(from_capture(capture)),
        rates,
        zones=limits.zones if limits else NO_ZONE_NAMES,
    )
    engine = {w.name: w.total("expected") for w in cost.workloads}
    awaiting = {w.name: sum(r.uncommitted_usd for r in w.resources) for w in cost.workloads}
    until_bought = 0.0
    for placement in plan.placements:
        name = placement.name
        if placement.offer.cloud in bought:
            assert engine[name] == pytest.approx(placement.monthly_usd, rel=0.01), name
            assert awaiting[name] == 0, name
            continue
        # Reservations bill on-demand until the commitment the plan assumes is held.
        until_held = placement.monthly_usd + placement.commitment_saving_usd
        until_bought += placement.commitment_saving_usd
        assert engine[name] == pytest.approx(until_held, rel=0.01), name
        assert engine[name] - awaiting[name] == pytest.approx(placement.monthly_usd, rel=0.01)
    assert cost.total("expected") == pytest.approx(plan.monthly_usd + until_bought, rel=0.01)
    assert cost.total("expected") - cost.uncommitted_usd == pytest.approx(
        plan.monthly_usd, rel=0.01
    )
    if not bought:
        assert cost.total("expected") == pytest.approx(plan.uncommitted_monthly_usd, rel=0.01)
    assert not cost.unpriced, [(r.name, r.unpriced) for r in cost.unpriced]
    return cost


@pytest.mark.parametrize("env", EXAMPLE_ENVS)
def test_every_placement_of_the_example_plan_is_priced_alike(env: str) -> None:
    assert_priced_alike(EXAMPLE, ROOT, env)


# The "$200K bill" of the cost playbooks, on AWS: one-GPU experiments on spot, 40 A100s
# serving (reserved, with an on-demand burst), a two-node weekly eval in a placement group,
# evals on a fleet counted in GPUs — and the spec's own commitment discounts.
BILL_SPEC = """\
version: 1
project: bill
owner: ml@acme.example
cost_center: cc-1
environments:
  prod: {monthly_budget_usd: 200000}
defaults:
  clouds: [aws]
  regions: {aws: [us-east-1]}
  commitment_discounts: {aws: {reserved_1y: 0.30, reserved_3y: 0.50}}
workloads:
  - {name: experiments, kind: training, gpu: {name: L4}, interruptible: true,
     hours_per_month: 100}
  - {name: serving, kind: inference, gpu: {name: A100, count: 8}, always_on: true,
     replicas: {min: 5, max: 6}, hours_per_month: 200}
  - {name: weekly-eval, kind: batch, gpu: {name: A100, count: 8}, nodes: 2,
     interruptible: true, hours_per_month: 24}
  - {name: eval-fleet, kind: inference, gpu: {name: A100, count: 8},
     replicas: {min: 2, max: 2}, interruptible: true, hours_per_month: 50}
"""
# A subnet in each zone the catalog prices in us-east-1.
ZONES = tuple(sorted({o.zone for o in load_catalog().offers if o.region == "us-east-1"}))
SUBNETS = "".join(
    f"          - {{id: subnet-0{i}23456789abcdef0, zoneId: {zone}, zone: us-east-1{letter}}}\n"
    for i, (zone, letter) in enumerate(zip(ZONES, "abcdefghijklmnopqrstuvwxyz", strict=False))
)
BILL_SITE = (
    "  site:aws:\n    regions:\n      us-east-1:\n        vpcId: vpc-0123456789abcdef0\n"
    f"        subnets:\n{SUBNETS}"
)


def test_a_generated_aws_stack_with_its_own_discounts_is_priced_alike(tmp_path: Path) -> None:
    stack_file = generated_project(tmp_path, BILL_SPEC, BILL_SITE)
    assert "gpufleet:commitmentDiscounts:" in stack_file.read_text()
    components = {c for parts in part_scalings(stack_file).values() for c, _ in parts}
    assert components == {"aws:SpotFleet", "aws:CapacityPool", "aws:PlacementCluster"}
    assert_priced_alike(tmp_path / "spec.yaml", tmp_path, "prod")


def test_a_generated_aws_stack_costs_what_its_plan_says(tmp_path: Path) -> None:
    """The invariant on AWS. The stack follows the plan's hours: experiments and the weekly
    eval sit at zero until asked, the serving burst follows its base's load, a nightly job runs
    on its schedule."""
    spec_text = (
        BILL_SPEC + "  - {name: nightly, kind: batch, gpu: {name: L4}, interruptible: true,\n"
        "     schedule: {time_zone: America/New_York, cron: '0 1 * * MON-FRI',"
        " duration_hours: 3}}\n"
    )
    stack_file = generated_project(tmp_path, spec_text, BILL_SITE)
    scalings = {name: [s for _, s in parts] for name, parts in part_scalings(stack_file).items()}
    assert scalings == {
        "experiments": ["on_request"],
        "serving": ["fixed", "on_load"],
        "weekly-eval": ["on_request"],
        "eval-fleet": ["on_request"],
        "nightly": ["schedule"],
    }
    assert_costs_its_plan(parse_spec(spec_text, "spec.yaml"), tmp_path, "prod")


@pytest.mark.parametrize("env", EXAMPLE_ENVS)
def test_the_example_stacks_cost_what_their_plan_says(env: str) -> None:
    """The invariant on the committed example stacks."""
    assert_costs_its_plan(load_spec(EXAMPLE, load_catalog()), ROOT, env)


# Azure sells A100s eight to a machine: chat's replicas, one to a machine, keep a burst to scale
# (packed, its three would share one).
AZURE_SPEC = """\
version: 1
project: azure-bill
owner: ml@acme.example
cost_center: cc-1
environments:
  prod: {}
defaults:
  clouds: [azure]
  regions: {azure: [eastus]}
workloads:
  - {name: sweeps, kind: batch, gpu: {name: A100}, interruptible: true, hours_per_month: 80}
  - {name: chat, kind: inference, gpu: {name: A100}, always_on: true, interruptible: true,
     replicas: {min: 1, max: 3}, hours_per_month: 150, max_replicas_per_instance: 1}
  - {name: office, kind: inference, gpu: {name: A100}, always_on: true,
     replicas: {min: 0, max: 2},
     schedule: {time_zone: Europe/Berlin,
                windows: [{days: weekdays, start: '08:00', end: '20:00'}]}}
"""
AZURE_SITE = """\
  site:azure:
    sshPublicKey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGpufleetexamplekey ops@acme
    regions:
      eastus: {resourceGroupName: rg, subnetId: /subscriptions/x/subnets/gpu}
"""


def test_a_generated_azure_stack_costs_what_its_plan_says(tmp_path: Path) -> None:
    """Scale sets follow the plan's hours too: on request, a burst on its reserved base's load,
    business hours on a schedule."""
    scalings = part_scalings(generated_project(tmp_path, AZURE_SPEC, AZURE_SITE))
    assert scalings["sweeps"] == [("azure:SpotScaleSet", "on_request")]
    assert scalings["office"] == [("azure:SpotScaleSet", "schedule")]
    assert scalings["chat"][1] == ("azure:SpotScaleSet", "on_load")
    assert_costs_its_plan(parse_spec(AZURE_SPEC, "spec.yaml"), tmp_path, "prod")


GCP_SITE = """\
  site:gcp:
    project: acme-ml
    sourceImage: projects/acme-ml/global/images/gpu-base
    regions:
      us-central1: {network: net, subnetwork: sub}
"""
# Added to GCP_SITE: the stack buys its reservations' commitments.
GCP_PURCHASE = "    purchaseCommitments: true\n"

GCP_RESERVED_SPEC = """\
version: 1
project: cud
owner: o@acme.example
cost_center: cc
environments:
  prod: {max_commitment: 3y}
defaults:
  clouds: [gcp]
  regions: {gcp: [us-central1]}
workloads:
  - {name: chat, kind: inference, gpu: {name: L4}, always_on: true, replicas: {min: 3, max: 3}}
  - {name: rank, kind: inference, gpu: {name: A100}, always_on: true, replicas: {min: 2, max: 2}}
"""


@pytest.mark.parametrize("purchase", [False, True])
def test_a_gcp_stack_that_buys_its_commitments_costs_its_plan_from_the_start(
    tmp_path: Path, purchase: bool
) -> None:
    """With ``purchaseCommitments`` the stack declares each reservation's committed-use
    discount (a protected RegionCommitment) and is priced at its plan; without, its
    reservations bill on-demand until one is held."""
    site = GCP_SITE + (GCP_PURCHASE if purchase else "")
    stack_file = generated_project(tmp_path, GCP_RESERVED_SPEC, site)
    reserved = {
        n for n, parts in part_scalings(stack_file).items() for c, _ in parts if "Reserv" in c
    }
    assert reserved == {"chat", "rank"}
    spec = parse_spec(GCP_RESERVED_SPEC, "spec.yaml")
    cost = assert_costs_its_plan(
        spec, tmp_path, "prod", bought=frozenset({"gcp"} if purchase else ())
    )
    assert (cost.uncommitted_usd == 0) is purchase
    capture, _ = capture_generated(tmp_path, "prod")
    commitments = capture.of_type("gcp:compute/regionCommitment:RegionCommitment")
    assert len(commitments) == (2 if purchase else 0)
    assert all(c.protect and c.retain_on_delete for c in commitments)


workload_strategy = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(KINDS),
        "gpu": st.sampled_from(AUTO_GPUS),
        "count": st.sampled_from([1, 8]),
        "interruptible": st.booleans(),
        "hours": st.sampled_from([None, 24, 150, 400]),
        "schedule": st.sampled_from(
            [
                None,
                "{time_zone: Europe/Berlin,"
                " windows: [{days: weekdays, start: '08:00', end: '18:00'}]}",
                "{time_zone: America/New_York, cron: '0 1 * * SAT', duration_hours: 10}",
            ]
        ),
        "nodes": st.sampled_from([1, 2]),
        "replicas": st.sampled_from([(1, 1), (1, 3), (0, 2), (3, 12)]),
        "per_instance": st.sampled_from([None, None, 2]),
        "sharing": st.sampled_from([None, None, "auto", "time_slicing"]),
        "share_memory": st.sampled_from([4, 9]),
        "always_on": st.booleans(),
    }
)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.lists(workload_strategy, min_size=1, max_size=3), st.booleans())
def test_generated_stacks_of_random_specs_cost_what_their_plan_says(
    workloads: list[dict[str, Any]], purchase: bool
) -> None:
    """The invariant over specs nobody wrote by hand: whatever plans, generates and builds on
    AWS, GCP or Azure, its stack's expected cost is the plan's within 1% per workload."""
    spec_text = (
        "version: 1\nproject: random\nowner: o@acme.example\ncost_center: cc\n"
        "environments:\n  prod: {}\n"
        "defaults:\n  clouds: [aws, gcp, azure]\n"
        "  regions: {aws: [us-east-1], gcp: [us-central1], azure: [eastus]}\n"
        "workloads:\n" + "".join(workload_yaml(i, w) for i, w in enumerate(workloads))
    )
    catalog = load_catalog()
    try:
        spec = parse_spec(spec_text, "random.yaml", catalog)
    except SpecError:
        assume(False)
        return
    plan = Planner(spec, catalog).plan_environment("prod")
    assume(plan.placements and not plan.unplaced)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        gcp_site = GCP_SITE + (GCP_PURCHASE if purchase else "")
        generated_project(root, spec_text, BILL_SITE + gcp_site + AZURE_SITE)
        note(spec_text)
        note(f"purchaseCommitments: {purchase}")
        assert_costs_its_plan(spec, root, "prod", bought=frozenset({"gcp"} if purchase else ()))

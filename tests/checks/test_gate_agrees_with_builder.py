"""The gate agrees with the builder: every stack ``gpufleet generate`` writes passes its own
check with no finding at all, under limits its plan meets, read four ways — the program's
capture (with realistic outputs, and as a preview with unknowns) and the ``pulumi stack
export`` of each (deployed shape, preview) — and prices the same from its export as from its
program, with no phantom line.

Random specs over three clouds (hypothesis) give breadth; a fixed set of specs covers every
registered component in every scaling mode it follows, and a test fails when a component or
a scaling mode the registry lists is covered by none (so a new one is proved here too).
The policies run in-process through the pack's own servicer (``PolicyHarness.check``, the
calls ``gpufleet check`` makes); ``tests/checks/test_stack_check.py`` runs the real command.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, assume, given, note, settings
from hypothesis import strategies as st

from gpufleet.capacity.cost_diff import diff_reports
from gpufleet.capacity.cost_engine import price_stack
from gpufleet.capacity.cost_report import CostReport
from gpufleet.capacity.footprints.reading import READERS
from gpufleet.capacity.stack_resource import stack_resources
from gpufleet.capacity.zone_names import NO_ZONE_NAMES
from gpufleet.clouds import CLOUDS
from gpufleet.engine.analyzer_resources import AnalyzerResource, from_capture, from_deployment
from gpufleet.engine.stack_export import deployment
from gpufleet.planner.capabilities import CAPABILITIES
from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.environment_profiles import PROFILES
from gpufleet.planner.managed_services import MANAGED
from gpufleet.planner.optimizer import Planner
from gpufleet.planner.plan import EnvironmentPlan
from gpufleet.planner.rates import shipped_rate_card
from gpufleet.planner.spec_loader import SpecError, parse_spec
from gpufleet.policies.pack import CONFIG_DIR
from gpufleet.policies.stack_limits import limits_in
from gpufleet.policies.testing import PolicyHarness, Violation
from gpufleet.workload_kinds import KINDS
from tests.capacity.test_plan_priced_alike import (
    AZURE_SITE,
    BILL_SITE,
    GCP_PURCHASE,
    GCP_SITE,
    generated_project,
    part_scalings,
)
from tests.random_specs import AUTO_GPUS, workload_yaml
from tests.stack_captures import capture_generated

SITE = BILL_SITE + GCP_SITE + AZURE_SITE
# The same, the GCP stack buying the commitments its reservations' plan assumes.
BUYING_SITE = BILL_SITE + GCP_SITE + GCP_PURCHASE + AZURE_SITE
# The environments with a profile and a policy config of their own.
ENVS = tuple(PROFILES)


def spec_text(workloads: str, env: str = "prod", settings: str = "{}") -> str:
    return (
        "version: 1\nproject: gate\nowner: o@acme.example\ncost_center: cc\n"
        f"environments:\n  {env}: {settings}\n"
        "defaults:\n  clouds: [aws, gcp, azure]\n"
        "  regions: {aws: [us-east-1], gcp: [us-central1], azure: [eastus]}\n"
        "workloads:\n" + workloads
    )


def plan_limits(plan: EnvironmentPlan) -> dict[str, Any]:
    """The environment's shipped policy config, its limits set to what the plan meets
    exactly: the largest machine's GPUs, the largest workload's and all of them at once, the
    plan's cost until the commitments it assumes are held (to the cent, rounded up)."""
    config = json.loads((CONFIG_DIR / f"{plan.environment}.json").read_text())
    gpus = [p.total_gpus for p in plan.placements]
    config["gpu-instance-size"] = {
        **config.get("gpu-instance-size", {}),
        "maxGpusPerInstance": max(p.offer.gpu_count for p in plan.placements),
    }
    config["gpu-fleet-size"] = {"maxGpusPerFleet": max(gpus), "maxGpusPerStack": sum(gpus)}
    # What the stack bills as generated: its reservations on-demand until a commitment is
    # held (the plan says so beside its figure with commitments).
    budget = plan.uncommitted_monthly_usd
    config["gpu-budget"] = {"monthlyBudgetUsd": round(budget * 1.01, 2) + 0.01}
    return config


def _only_unknown(finding: Violation) -> bool:
    return finding.level == "advisory" and "during preview" in finding.message


def assert_prices_alike(
    program: list[AnalyzerResource],
    exported: list[AnalyzerResource],
    config: dict[str, str],
    env: str,
) -> None:
    """The export prices as the program does, resource for resource, and every line is a
    resource of a cloud or a component gpufleet reads (its SageMaker job template): never the
    stack's outputs, a provider, or a component's registered outputs."""
    limits = limits_in(config)
    rates = shipped_rate_card(limits.commitment_discounts if limits else None)
    zones = limits.zones if limits else NO_ZONE_NAMES
    head = CostReport("gate", env, price_stack(stack_resources(program), rates, zones=zones))
    base = CostReport("gate", env, price_stack(stack_resources(exported), rates, zones=zones))
    diff = diff_reports(base.as_dict(), head.as_dict())
    assert diff.changed == [], [(c.status, c.name, c.changes) for c in diff.changed]
    assert diff.unpriced("base") == diff.unpriced("head") == 0
    holders = {
        r.urn
        for r in program
        if not r.type.startswith("pulumi:") and (r.provider is not None or r.type in READERS)
    }
    lines = [line for w in head.as_dict()["workloads"] for line in w["resources"]]
    assert lines and all(line["urn"] in holders for line in lines), lines


@contextmanager
def generated(
    text: str, env: str, *, drawn: bool, site: str = SITE
) -> Iterator[tuple[Path, EnvironmentPlan]]:
    """A project of the stack generated from ``text``; a spec hypothesis ``drawn`` that does
    not plan is skipped, a written one must."""
    catalog = load_catalog()
    try:
        spec = parse_spec(text, "spec.yaml", catalog)
    except SpecError:
        if not drawn:
            raise
        assume(False)
        raise
    plan = Planner(spec, catalog).plan_environment(env)
    if drawn:
        assume(bool(plan.placements) and not plan.unplaced)
        note(text)
    assert plan.placements and not plan.unplaced, text
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        generated_project(root, text, site, env)
        yield root, plan


def findings(
    resources: list[AnalyzerResource],
    config: dict[str, Any],
    stack_config: dict[str, str],
    env: str,
    preview: bool,
) -> list[Violation]:
    harness = PolicyHarness(config=config, stack=env, dry_run=preview, stack_config=stack_config)
    return harness.check(resources)


def assert_gate_agrees(
    text: str, env: str = "prod", *, drawn: bool = False, site: str = SITE
) -> set[tuple[str, str]]:
    """Every way of reading the generated stack passes its check with no finding and prices
    the same from its export; the (component, scaling) parts it built."""
    with generated(text, env, drawn=drawn, site=site) as (project, plan):
        config = plan_limits(plan)
        stack_file = project / "stacks" / f"Pulumi.{env}.yaml"
        for preview in (False, True):
            # The program gpufleet check runs in a child, run in-process: many runs stay fast.
            capture, setup = capture_generated(project, env, preview=preview)
            program = from_capture(capture)
            exported = from_deployment(json.loads(json.dumps(deployment(capture))), "export")
            for how, resources in (("program", program), ("export", exported)):
                found = findings(resources, config, setup.config, env, preview)
                # A fresh stack's preview cannot know what only deploying decides (which
                # template a group version launches): said as an advisory, as Pulumi treats
                # unknowns; nothing else, and nothing at all once deployed.
                unsettled = [f for f in found if preview and _only_unknown(f)]
                assert found == unsettled, (how, "preview" if preview else "deployed", found)
            if not preview:
                assert_prices_alike(program, exported, setup.config, env)
        return {
            (component, scaling)
            for parts in part_scalings(stack_file).values()
            for component, scaling in parts
        }


workload = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(KINDS),
        "gpu": st.sampled_from(AUTO_GPUS),
        "count": st.sampled_from([1, 2, 4, 8]),
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
        "nodes": st.sampled_from([1, 2, 4]),
        # Up to a dozen: packed several to a machine, a burst spills onto more.
        "replicas": st.sampled_from([(1, 1), (1, 3), (0, 2), (2, 4), (3, 12)]),
        "per_instance": st.sampled_from([None, None, 1, 2]),
        "sharing": st.sampled_from([None, None, None, "auto", "mps", "time_slicing"]),
        "share_memory": st.sampled_from([4, 9, 30]),
        "always_on": st.booleans(),
        "cloud": st.sampled_from([None, *CLOUDS]),
        "managed": st.sampled_from([None, None, None, *MANAGED]),
    }
)


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    # Each example generates, runs and checks a stack four ways: shrinking would take longer
    # than the whole suite; the failing spec is printed whole instead (note).
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(
    st.lists(workload, min_size=1, max_size=4),
    st.sampled_from(ENVS),
    st.sampled_from(["{}", "{max_commitment: 1y}", "{allow_on_demand: false}"]),
    st.sampled_from([SITE, BUYING_SITE]),
)
def test_generated_stacks_of_random_specs_pass_their_own_check(
    workloads: list[dict[str, Any]], env: str, env_settings: str, site: str
) -> None:
    text = spec_text(
        "".join(workload_yaml(i, w) for i, w in enumerate(workloads)), env, env_settings
    )
    note(f"site:gcp purchaseCommitments: {site == BUYING_SITE}")
    assert_gate_agrees(text, env, drawn=True, site=site)


# Specs that together build every registered component in every scaling mode it follows.
# (Azure sells A100s eight to a machine: its serving keeps a burst with one replica each.)
COVERING = {
    "aws": """\
  - {name: serve, kind: inference, gpu: {name: L4}, always_on: true, interruptible: true,
     replicas: {min: 2, max: 5}, hours_per_month: 120, clouds: [aws]}
  - {name: office, kind: inference, gpu: {name: L4}, always_on: true, clouds: [aws],
     replicas: {min: 0, max: 2},
     schedule: {time_zone: Europe/Berlin,
                windows: [{days: weekdays, start: '08:00', end: '20:00'}]}}
  - {name: sweep, kind: training, gpu: {name: L4}, interruptible: true, hours_per_month: 40,
     clouds: [aws]}
  - {name: fixed, kind: inference, gpu: {name: A10G}, always_on: true, replicas: {min: 1, max: 1},
     interruptible: true, clouds: [aws]}
  - {name: pretrain, kind: training, gpu: {name: H100, count: 8}, nodes: 2, interruptible: true,
     hours_per_month: 100, clouds: [aws]}
  - {name: nightly, kind: batch, gpu: {name: A100, count: 8}, nodes: 2, interruptible: true,
     clouds: [aws],
     schedule: {time_zone: America/New_York, cron: '0 1 * * MON-FRI', duration_hours: 3}}
  - {name: ranker, kind: training, gpu: {name: A10G, count: 4}, managed: sagemaker,
     interruptible: true, hours_per_month: 80}
""",
    "gcp": """\
  - {name: serve, kind: inference, gpu: {name: L4}, always_on: true, interruptible: true,
     replicas: {min: 2, max: 5}, hours_per_month: 120, clouds: [gcp]}
  - {name: office, kind: inference, gpu: {name: L4}, always_on: true, clouds: [gcp],
     replicas: {min: 0, max: 2},
     schedule: {time_zone: Europe/Berlin,
                windows: [{days: weekdays, start: '08:00', end: '20:00'}]}}
  - {name: sweep, kind: training, gpu: {name: L4}, interruptible: true, hours_per_month: 40,
     clouds: [gcp]}
  - {name: fixed, kind: inference, gpu: {name: T4}, always_on: true, replicas: {min: 1, max: 1},
     interruptible: true, clouds: [gcp]}
  - {name: pretrain, kind: training, gpu: {name: H100, count: 8}, nodes: 2, interruptible: true,
     hours_per_month: 100, clouds: [gcp]}
""",
    "azure": """\
  - {name: serve, kind: inference, gpu: {name: A100}, always_on: true, interruptible: true,
     replicas: {min: 1, max: 3}, hours_per_month: 150, clouds: [azure],
     max_replicas_per_instance: 1}
  - {name: office, kind: inference, gpu: {name: A100}, always_on: true, clouds: [azure],
     replicas: {min: 0, max: 2},
     schedule: {time_zone: Europe/Berlin,
                windows: [{days: weekdays, start: '08:00', end: '20:00'}]}}
  - {name: sweep, kind: batch, gpu: {name: A100}, interruptible: true, hours_per_month: 80,
     clouds: [azure]}
  - {name: fixed, kind: inference, gpu: {name: A100}, always_on: true, replicas: {min: 1, max: 1},
     interruptible: true, clouds: [azure]}
  - {name: pretrain, kind: training, gpu: {name: A100, count: 8}, nodes: 2, interruptible: true,
     hours_per_month: 100, clouds: [azure]}
  - {name: embed, kind: batch, gpu: {min_memory_gib: 16, count: 1}, managed: azureml,
     interruptible: true, hours_per_month: 90}
""",
}


@cache
def covering_parts(cloud: str) -> frozenset[tuple[str, str]]:
    text = spec_text(COVERING[cloud], "prod", "{max_commitment: 1y}")
    # GCP's reservations with the commitments the stack buys: checked alike.
    return frozenset(assert_gate_agrees(text, site=BUYING_SITE if cloud == "gcp" else SITE))


@pytest.mark.parametrize("cloud", sorted(COVERING))
def test_every_component_and_scaling_of_a_cloud_passes_its_own_check(cloud: str) -> None:
    assert covering_parts(cloud)


def test_the_covering_specs_build_every_component_in_every_scaling_it_follows() -> None:
    built = set().union(*(covering_parts(cloud) for cloud in COVERING))
    # What each component can realize: the scalings it follows, or fixed when it follows none.
    wanted = {
        (name, scaling)
        for name, capability in CAPABILITIES.items()
        for scaling in (capability.follows or {"fixed"})
    }
    assert wanted - built == set(), sorted(wanted - built)

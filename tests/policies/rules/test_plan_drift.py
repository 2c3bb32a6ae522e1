"""The ``plan-drift`` rule through the servicer the pack serves: a generated stack's workloads
held to the monthly cost its plan wrote into the stack config, within a tolerance; what cannot
be compared (unpriced, missing, unplanned capacity) said; advisory by default, mandatory in the
shipped prod config."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from gpufleet.policies.pack import CONFIG_DIR
from gpufleet.policies.testing import UNKNOWN, PolicyHarness, StackInput, Violation
from tests.policies.inputs import ASG, LT, SECURE_LT, TAGS

# Two p5.48xlarge on demand in us-east-1 all month ($98.32 an hour, 730 h).
TWO_P5 = 143_547.20


def stack(workload: str = "train", instance_type: str = "p5.48xlarge") -> list[StackInput]:
    """A group of two ``instance_type`` all month, tagged as ``workload``'s (resources named
    after it)."""
    template = StackInput(
        LT,
        {**SECURE_LT, "instanceType": instance_type, "region": "us-east-1"},
        f"{workload}-tpl",
    )
    group = StackInput(
        ASG,
        {
            "minSize": 2,
            "maxSize": 2,
            "launchTemplate": {"id": "lt-1"},
            "tags": [
                {"key": k, "value": v, "propagateAtLaunch": True}
                for k, v in {**TAGS, "workload": workload}.items()
            ],
        },
        f"{workload}-group",
        property_dependencies={"launchTemplate": [template.urn("dev")]},
    )
    return [template, group]


def planned(**monthly: float) -> dict[str, str]:
    """A stack config whose plan gives these workloads' monthly costs."""
    workloads = [{"name": name, "monthlyUsd": usd, "parts": []} for name, usd in monthly.items()]
    return {"gpufleet:workloads": json.dumps(workloads)}


def drift(
    stack_config: dict[str, str], resources: list[StackInput], **config: Any
) -> list[Violation]:
    harness = PolicyHarness(
        config={"plan-drift": config} if config else {}, stack_config=stack_config
    )
    return [v for v in harness.analyze_stack(resources) if v.policy == "plan-drift"]


def test_a_stack_that_costs_its_plan_passes_and_one_without_a_plan_has_nothing_to_drift_from() -> (
    None
):
    assert drift(planned(train=TWO_P5), stack()) == []
    assert drift({}, stack()) == []
    # Within the default 1 %: rounding, not drift.
    assert drift(planned(train=TWO_P5 * 1.009), stack()) == []


@pytest.mark.parametrize(("plan", "change"), [(100_000.0, "+43.5%"), (200_000.0, "-28.2%")])
def test_a_workload_costing_more_or_less_than_its_plan_is_a_finding(
    plan: float, change: str
) -> None:
    (finding,) = drift(planned(train=plan), stack())
    assert finding.level == "advisory"
    assert finding.message.startswith(
        f"workload train: expected ${TWO_P5:,.2f}/month, plan ${plan:,.2f}/month ({change})"
    )
    assert drift(planned(train=plan), stack(), tolerancePercent=50) == []


def test_what_cannot_be_compared_is_a_finding() -> None:
    (unpriced,) = drift(planned(train=TWO_P5), stack(instance_type="p9.96xlarge"))
    assert unpriced.message.startswith("workload train: its cost cannot be compared with its plan")
    (missing,) = drift(planned(train=TWO_P5, serve=500.0), stack())
    assert missing.message.startswith(
        "workload serve: the plan's $500.00/month has no GPU capacity"
    )
    (unplanned,) = drift(planned(train=TWO_P5), [*stack(), *stack(workload="extra")])
    assert unplanned.message.startswith("workload extra is not in the stack's plan")


def test_the_shipped_prod_config_makes_it_mandatory_and_the_others_advisory() -> None:
    levels = {
        env: json.loads((CONFIG_DIR / f"{env}.json").read_text()).get("plan-drift", "advisory")
        for env in ("dev", "staging", "prod")
    }
    assert levels == {"dev": "advisory", "staging": "advisory", "prod": "mandatory"}
    prod = json.loads((CONFIG_DIR / "prod.json").read_text())
    harness = PolicyHarness(config=prod, stack_config=planned(train=100_000.0))
    (finding,) = [v for v in harness.analyze_stack(stack()) if v.policy == "plan-drift"]
    assert finding.level == "mandatory"


def untagged(resources: list[StackInput]) -> list[StackInput]:
    """The stack without its workload tag (the cost tags kept)."""
    template, group = resources
    tags = [t for t in group.props["tags"] if t["key"] != "workload"]
    return [template, replace(group, props={**group.props, "tags": tags})]


def test_capacity_the_plan_does_not_hold_is_a_finding_priced_or_not() -> None:
    (bare,) = drift(planned(train=TWO_P5), [*stack(), *untagged(stack(workload="stray"))])
    assert bare.message.startswith("GPU capacity under no workload tag costs $143,547.20")
    (unknown,) = drift(planned(train=TWO_P5), [*stack(), *stack("new", "p9.96xlarge")])
    assert unknown.message.startswith("workload new is not in the stack's plan")
    assert "1 resource(s) cannot be priced" in unknown.message


def test_a_plan_stripped_of_its_figures_is_a_finding() -> None:
    config = {"gpufleet:workloads": json.dumps([{"name": "train", "parts": []}])}
    (finding,) = drift(config, stack())
    assert "gives no monthlyUsd" in finding.message


def test_in_a_preview_what_is_priced_already_past_the_plan_is_a_finding() -> None:
    """A workload of which one group's machine is unknown until deployed: under its plan it
    waits for the deploy (gpu-size-undetermined says so); already past it, it is drift."""
    template, group = stack(workload="train")
    unknown = StackInput(
        LT, {**SECURE_LT, "instanceType": UNKNOWN, "region": "us-east-1"}, "train-tpl-2"
    )
    second = replace(
        group,
        name="train-group-2",
        property_dependencies={"launchTemplate": [unknown.urn("dev")]},
    )
    both = [template, group, unknown, second]
    harness = PolicyHarness(stack_config=planned(train=TWO_P5 * 1.5), dry_run=True)
    assert [v for v in harness.analyze_stack(both) if v.policy == "plan-drift"] == []
    harness = PolicyHarness(stack_config=planned(train=TWO_P5 / 2), dry_run=True)
    (past,) = [v for v in harness.analyze_stack(both) if v.policy == "plan-drift"]
    assert past.message.startswith("workload train: expected $143,547.20/month, plan")


def test_in_a_preview_capacity_whose_workload_tag_is_unknown_waits_for_the_deploy() -> None:
    """Its tags come from another resource's output: whose it is is known once deployed. The
    planned workload is not "gone", nor is the capacity "untagged", yet."""
    template, group = stack()
    unsure = replace(group, props={**group.props, "tags": UNKNOWN})
    harness = PolicyHarness(stack_config=planned(train=TWO_P5), dry_run=True)
    assert [v for v in harness.analyze_stack([template, unsure]) if v.policy == "plan-drift"] == []
    deployed = PolicyHarness(stack_config=planned(train=TWO_P5))
    found = [v for v in deployed.analyze_stack(untagged(stack())) if v.policy == "plan-drift"]
    assert len(found) == 2  # once deployed, an untagged group is drift: gone, and untagged

"""The environment's limits from a generated stack's config (``gpufleet:limits``): read as the
engine hands them over, current for the calls the pack serves, overridden by the policy
config."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpufleet.policies.stack_limits import StackLimits, current_limits, limits_in, stack_limits
from gpufleet.policies.testing import PolicyHarness, StackInput
from gpufleet.stacks import config_keys
from gpufleet.stacks.stack_config import Limits
from tests.policies.inputs import GCP_TEMPLATE, LT, SECURE_LT, TAGS, asg_from_template


def limits(**values: Any) -> dict[str, str]:
    """The engine's config map of a stack whose gpufleet:limits ``gpufleet generate`` wrote:
    written by the stack config's own model, so a renamed field cannot pass unnoticed."""
    model = Limits(allow_on_demand=False, max_commitment="none", **values)
    text = json.dumps(model.model_dump(by_alias=True, exclude_none=True, mode="json"))
    return {config_keys.LIMITS_KEY: text}


def test_limits_are_read_from_the_engine_config() -> None:
    found = limits_in(limits(monthly_budget_usd=6000, allowed_gpus=["L4", "T4"]))
    assert found == StackLimits(monthly_budget_usd=6000.0, allowed_gpus=("L4", "T4"))
    assert limits_in({"aws:region": "us-east-1"}) is None


@pytest.mark.parametrize(
    "text",
    ["not json", "[1, 2]", '{"monthlyBudgetUsd": "lots"}', '{"monthlyBudgetUsd": true}'],
)
def test_unreadable_limits_are_no_limits(text: str) -> None:
    found = limits_in({config_keys.LIMITS_KEY: text})
    assert found is not None and found.monthly_budget_usd is None


def test_current_limits_apply_inside_only() -> None:
    with current_limits(StackLimits(monthly_budget_usd=5.0)):
        assert stack_limits().monthly_budget_usd == 5.0
    assert stack_limits() == StackLimits()


def budget_findings(harness: PolicyHarness) -> list[str]:
    template = StackInput(LT, {**SECURE_LT, "instanceType": "p5.48xlarge"}, "tpl")
    group = asg_from_template(2, template.urn("dev"))
    return [v.message for v in harness.analyze_stack([template, group]) if v.policy == "gpu-budget"]


def test_the_budget_comes_from_the_stack_unless_the_policy_config_sets_one() -> None:
    assert budget_findings(PolicyHarness()) == []  # no budget anywhere
    from_stack = budget_findings(PolicyHarness(stack_config=limits(monthly_budget_usd=1000)))
    assert len(from_stack) == 1 and "exceeds the budget of $1,000.00/month" in from_stack[0]
    overridden = PolicyHarness(
        config={"gpu-budget": {"monthlyBudgetUsd": 10_000_000}},
        stack_config=limits(monthly_budget_usd=1000),
    )
    assert budget_findings(overridden) == []


def test_allowed_gpus_come_from_the_stack_unless_the_policy_config_sets_them() -> None:
    a100 = {"labels": TAGS, "machineType": "a2-highgpu-1g"}
    from_stack = PolicyHarness(stack_config=limits(allowed_gpus=["L4"]))
    assert [v.message for v in from_stack.analyze(GCP_TEMPLATE, a100)] == [
        "a2-highgpu-1g carries A100; allowed here: L4"
    ]
    any_gpu = PolicyHarness(
        config={"gpu-instance-size": {"allowedGpuTypes": []}},
        stack_config=limits(allowed_gpus=["L4"]),
    )
    assert any_gpu.analyze(GCP_TEMPLATE, a100) == []

"""Rule ``plan-drift``: each workload's expected cost is what its plan says.

A stack ``gpufleet generate`` wrote carries its plan's monthly cost per workload
(``gpufleet:workloads`` in the stack config, ``stack_limits``); the cost engine prices what the
stack's resources will really run (``capacity.cost_engine``: their settings first, a declared
use where only a forecast can tell). A hand edit that does not go through the spec — a size,
a schedule, a scaling policy, an idle time-out, an ``expected-minutes`` tag — moves that
figure away from the plan printed beside it: this rule says so, per workload, beyond a
tolerance (``tolerancePercent``, 1 % by default), up or down (``capacity.plan_drift``, which
``gpufleet cost`` shows too). Stacks without a plan (hand-written) have nothing to drift from.
Mandatory in the shipped prod config, advisory elsewhere.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel

from gpufleet.capacity.plan_drift import DEFAULT_TOLERANCE, plan_drift
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.policies.policy_builders import Findings, Settings, stack_policy
from gpufleet.policies.shared_reads import stack_cost
from gpufleet.policies.stack_limits import stack_limits
from gpufleet.policy_tags import COST

TOLERANCE_KEY = "tolerancePercent"

CONFIG = {
    TOLERANCE_KEY: {
        "type": "number",
        "minimum": 0,
        "default": DEFAULT_TOLERANCE * 100,
        "description": "How far (percent of the plan's figure) a workload's expected monthly "
        "cost may move from its plan before it is a finding.",
    },
}


def check_plan_drift(resources: list[StackResource], settings: Settings) -> Findings:
    findings = Findings()
    limits = stack_limits()
    planned = limits.planned_monthly_usd
    for name in sorted(limits.planned_workloads - set(planned)):
        # A generated stack gives each workload its plan's figure: one without is edited.
        findings.violate(
            f"workload {name}: the stack config's plan (gpufleet:workloads) gives no monthlyUsd "
            "to compare it with; run gpufleet generate"
        )
    if not planned:
        return findings
    tolerance = float(settings[TOLERANCE_KEY]) / 100.0
    for drift in plan_drift(stack_cost(resources), planned, tolerance):
        findings.violate(
            f"{drift.message}; change the spec and run gpufleet generate, or gpufleet cost "
            "shows every resource"
        )
    return findings


POLICY = stack_policy(
    "plan-drift",
    "Each workload's expected GPU cost is what its plan says.",
    check_plan_drift,
    config=CONFIG,
    display_name="Workload cost matches its plan",
    tags=[COST],
    enforcement_level=EnforcementLevel.ADVISORY,
    remediation_steps="Change the spec and run gpufleet generate instead of editing the "
    "generated resources; gpufleet cost shows what each resource's settings run.",
)

"""Rule ``plan-drift``: each workload's expected cost is what its plan says.

A stack ``gpufleet generate`` wrote carries its plan's monthly cost per workload
(``gpufleet:workloads`` in the stack config, ``stack_limits``); the cost engine prices what the
stack's resources will really run (``capacity.cost_engine``: their settings first, a declared
use where only a forecast can tell). A hand edit that does not go through the spec — a size,
a schedule, a scaling policy, an idle time-out, an ``expected-minutes`` tag — moves that
figure away from the plan printed beside it: this rule says so, per workload, beyond a
tolerance (``tolerancePercent``, 1 % by default), up or down (a cheaper stack may run less
than the spec asks). A planned workload whose GPU capacity cannot be priced cannot be
compared, which is a finding too (fail closed); one only unknown during a preview is
``gpu-size-undetermined``'s to report. Stacks without a plan (hand-written) have nothing to
drift from. Mandatory in the shipped prod config, advisory elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping

from pulumi_policy import EnforcementLevel

from gpufleet.capacity.cost_engine import UNTAGGED, StackCost, WorkloadCost
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.policies.policy_builders import Findings, Settings, stack_policy
from gpufleet.policies.shared_reads import stack_cost
from gpufleet.policies.stack_limits import stack_limits
from gpufleet.policy_tags import COST

TOLERANCE_KEY = "tolerancePercent"
DEFAULT_TOLERANCE_PERCENT = 1.0

CONFIG = {
    TOLERANCE_KEY: {
        "type": "number",
        "minimum": 0,
        "default": DEFAULT_TOLERANCE_PERCENT,
        "description": "How far (percent of the plan's figure) a workload's expected monthly "
        "cost may move from its plan before it is a finding.",
    },
}


def check_plan_drift(resources: list[StackResource], settings: Settings) -> Findings:
    findings = Findings()
    planned = stack_limits().planned_monthly_usd
    if not planned:
        return findings
    tolerance = float(settings[TOLERANCE_KEY]) / 100.0
    cost = stack_cost(resources)
    by_name = {w.name: w for w in cost.workloads}
    for name in sorted(planned):
        message = drift_message(by_name.get(name), name, planned[name], tolerance)
        if message is not None:
            findings.violate(message)
    for workload in _unplanned(cost, planned):
        priced = workload.total("expected")
        findings.violate(
            f"workload {workload.name} is not in the stack's plan but its GPU capacity costs "
            f"${priced:,.2f}/month expected: add it to the spec and run gpufleet generate"
        )
    return findings


def drift_message(
    workload: WorkloadCost | None, name: str, plan: float, tolerance: float
) -> str | None:
    """What the rule says of one planned workload; None when it costs its plan."""
    if workload is None or not workload.resources:
        if plan <= 0:
            return None
        return (
            f"workload {name}: the plan's ${plan:,.2f}/month has no GPU capacity in the stack "
            "(removed by hand, or its workload tag changed)"
        )
    unpriced = [r for r in workload.unpriced if not r.unknown]
    if unpriced:
        listed = "; ".join(f"{r.name}: {r.unpriced}" for r in unpriced)
        return (
            f"workload {name}: its cost cannot be compared with its plan "
            f"(${plan:,.2f}/month): {listed}"
        )
    if any(r.unknown for r in workload.unpriced):
        return None  # known once deployed; gpu-size-undetermined says so
    expected = workload.total("expected")
    if abs(expected - plan) <= tolerance * plan + 0.005:
        return None
    change = f"{(expected - plan) / plan:+.1%}" if plan else "from $0"
    moved = [r for r in workload.resources if "the settings win" in r.basis]
    why = (
        "; ".join(f"{r.name}: {r.basis}" for r in moved)
        if moved
        else "its resources' sizes, schedules, scaling or declared use differ from the plan"
    )
    return (
        f"workload {name}: expected ${expected:,.2f}/month, plan ${plan:,.2f}/month "
        f"({change}): {why}; change the spec and run gpufleet generate, or gpufleet cost shows "
        "every resource"
    )


def _unplanned(cost: StackCost, planned: Mapping[str, float]) -> list[WorkloadCost]:
    """Workloads the stack prices that its plan does not name (capacity added by hand under a
    workload tag of its own); untagged capacity is the tag rules' to report."""
    return [
        w
        for w in cost.workloads
        if w.name not in planned and w.name != UNTAGGED and w.total("expected") > 0
    ]


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

"""Rule ``gpu-budget``: the stack's GPU capacity fits the environment's monthly budget.

The cost is the cost engine's (``capacity.cost_engine``), the same figures ``gpufleet cost``
shows for the stack, to the cent: by default the *expected* monthly cost (each resource at
the size its own settings run, 730 h), or with ``estimate: maximum`` every group at its max
size. A GPU resource the engine cannot price (a machine the catalog does not know) is a
violation of its own wherever a budget is set: it could be any amount. One whose machine or
size is only unknown during a preview is left to ``gpu-size-undetermined``, as Pulumi treats
values a preview cannot know; a commitment the stack buys whose amounts a preview does not
know is an advisory here.

The budget is the policy config's ``monthlyBudgetUsd`` when it sets one, else the
environment's ``monthly_budget_usd`` from the spec (``gpufleet:limits`` in a generated stack's
config, ``stack_limits``), whatever the environment is called; without either, no budget.
Beside it, ``worstCaseMonthlyUsd`` (policy config only) caps the *maximum* figure, every group
at its max size all month: groups parked at zero, which the expected figure counts as nothing,
cannot hide what they may cost.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.capacity.cost_engine import COMMITMENT_KIND, FIGURES, StackCost
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.policies.policy_builders import Findings, Settings, stack_policy
from gpufleet.policies.shared_reads import stack_cost
from gpufleet.policies.stack_limits import stack_limits
from gpufleet.policy_tags import COST

# The cap on the maximum figure (``gpufleet cost`` shows it too).
WORST_CASE_KEY = "worstCaseMonthlyUsd"

CONFIG = {
    "monthlyBudgetUsd": {
        "type": "number",
        "exclusiveMinimum": 0,
        "description": "Most the stack's GPU capacity may cost per month. "
        "Default: the spec's monthly_budget_usd for the environment.",
    },
    WORST_CASE_KEY: {
        "type": "number",
        "exclusiveMinimum": 0,
        "description": "Most the stack's GPU capacity may cost per month with every group at "
        "its max size all month (the maximum figure), judged beside the budget. Default: none.",
    },
    "estimate": {
        "enum": list(FIGURES),
        "default": "expected",
        "description": "Which cost the budget holds: expected (the sizes the resources' own "
        "settings run) or maximum (every group at its max size, all month).",
    },
}


def budget_of(settings: Mapping[str, Any]) -> float | None:
    """The budget this policy holds the stack to, None without one: its config's, else the
    spec's from the stack config (``gpufleet cost`` asks the same question here)."""
    budget = settings.get("monthlyBudgetUsd")
    return budget if budget is not None else stack_limits().monthly_budget_usd


def check_budget(resources: list[StackResource], settings: Settings) -> Findings:
    findings = Findings()
    budget = budget_of(settings)
    worst_case = settings.get(WORST_CASE_KEY)
    if budget is None and worst_case is None:
        return findings
    cost = stack_cost(resources)
    limits = " and ".join(
        f"{what} of ${value:,.2f}/month"
        for what, value in (("the budget", budget), ("the worst-case cap", worst_case))
        if value is not None
    )
    # Capacity unpriced only because a value is unknown in a preview is gpu-size-undetermined's
    # to report (advisory), as Pulumi treats unknowns.
    for line in cost.unpriceable:
        findings.violate(
            f"{line.kind} {line.name} cannot be priced ({line.unpriced}), so {limits} cannot "
            "be checked for it",
            line.urn,
        )
    # A commitment the stack buys is no GPU capacity for gpu-size-undetermined to report.
    for line in cost.unpriced:
        if line.unknown and line.kind == COMMITMENT_KIND:
            findings.violate(
                f"{line.kind} {line.name} cannot be priced until deployed ({line.unpriced})",
                line.urn,
                advisory=True,
            )
    if budget is not None:
        message = over_budget_message(cost, budget, settings["estimate"])
        if message is not None:
            findings.violate(message)
    if worst_case is not None:
        message = over_budget_message(cost, worst_case, "maximum", "the worst-case cap")
        if message is not None:
            findings.violate(message)
    return findings


def over_budget_message(
    cost: StackCost, budget: float, estimate: str, what: str = "the budget"
) -> str | None:
    """What the policy says when the stack is over its budget (or ``what`` limit); None when
    it is not."""
    which = "maximum" if estimate == "maximum" else "expected"
    total = cost.total(which)
    if total <= budget:
        return None
    other = "maximum" if which == "expected" else "expected"
    top = sorted(
        (r for r in cost.resources if r.in_totals and r.figure(which).monthly_usd),
        key=lambda r: -(r.figure(which).monthly_usd or 0.0),
    )[:3]
    biggest = ", ".join(f"{r.name} ${r.figure(which).monthly_usd:,.2f}" for r in top)
    return (
        f"{which} GPU cost ${total:,.2f}/month ({other} ${cost.total(other):,.2f}) exceeds "
        f"{what} of ${budget:,.2f}/month by ${total - budget:,.2f} (largest: {biggest}); "
        "gpufleet cost shows every resource"
    )


POLICY = stack_policy(
    "gpu-budget",
    "The stack's monthly GPU cost stays within the environment's budget.",
    check_budget,
    config=CONFIG,
    display_name="Monthly GPU cost within budget",
    tags=[COST],
    remediation_steps="Use spot / low-priority capacity, smaller groups or machines "
    "(gpufleet plan shows the cheapest fit), or raise the environment's monthly_budget_usd.",
)

"""Rule ``gpu-budget``: the stack's GPU capacity fits the environment's monthly budget.

The estimate is an upper bound, the way a budget owner reads one: every capacity resource at
its largest size (ASG max size, MIG target size, Azure ML max nodes, scale-set capacity,
reservation count) for a whole month (730 h; a training job for its MaxRuntime), at catalog
prices for its region and pricing model — spot for spot fleets, GCP Spot VMs, Azure spot /
low-priority and SageMaker managed spot, on-demand otherwise (reservations are charged at the
on-demand rate whether used or not; commitment discounts are billing, outside the stack).
SageMaker machines carry the SageMaker markup. VMs that run inside a reservation of the same
stack are not counted twice. Capacity that cannot be priced is named in the message and in
``gpu-size-undetermined``.

The budget is the policy config's ``monthlyBudgetUsd`` when it sets one, else the
environment's ``monthly_budget_usd`` from the spec (``gpufleet:limits`` in a generated stack's
config, ``stack_limits``), whatever the environment is called; without either, no budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpufleet.policies.footprints.model import GpuFootprint, shipped_machine_catalog
from gpufleet.policies.policy_builders import Findings, Settings, StackResource, stack_policy
from gpufleet.policies.stack_capacity import stack_capacity
from gpufleet.policies.stack_limits import stack_limits

CONFIG = {
    "monthlyBudgetUsd": {
        "type": "number",
        "exclusiveMinimum": 0,
        "description": "Most the stack's GPU capacity may cost per month (upper bound). "
        "Default: the spec's monthly_budget_usd for the environment.",
    },
}


@dataclass(frozen=True)
class CostLine:
    urn: str
    name: str
    monthly_usd: float | None  # None: could not be priced
    why_unpriced: str = ""


def monthly_cost(footprint: GpuFootprint) -> tuple[float | None, str]:
    """Upper-bound monthly cost of one capacity resource, or (None, why)."""
    if footprint.market == "in_reservation":
        return 0.0, ""
    if not footprint.machines or footprint.instances is None:
        return None, "; ".join(footprint.undetermined) or "size unknown"
    catalog = shipped_machine_catalog()
    prices = []
    for machine in footprint.machines:
        on_demand = catalog.hourly(machine, footprint.region, "on_demand")
        spot = catalog.hourly(machine, footprint.region, "spot")
        if on_demand is None:
            where = footprint.region or "any region"
            return None, f"no catalog price for {machine.instance_type} in {where}"
        prices.append((on_demand, spot if spot is not None else on_demand))
    # The dearest machine option: an upper bound whichever the fleet ends up launching.
    on_demand_price, spot_price = max(prices)
    instances = footprint.instances
    if footprint.market == "spot":
        hourly = instances * spot_price
    elif footprint.market == "mixed" and footprint.on_demand_instances is not None:
        on_demand = min(footprint.on_demand_instances, instances)
        hourly = on_demand * on_demand_price + (instances - on_demand) * spot_price
    else:
        hourly = instances * on_demand_price
    return hourly * footprint.hours_per_month, ""


def cost_lines(resources: list[StackResource]) -> list[CostLine]:
    lines = []
    for item in stack_capacity(resources):
        cost, why = monthly_cost(item.footprint)
        lines.append(CostLine(item.resource.urn, item.resource.name, cost, why))
    return lines


def check_budget(resources: list[StackResource], settings: Settings) -> Findings:
    findings = Findings()
    budget = settings.get("monthlyBudgetUsd")
    if budget is None:
        budget = stack_limits().monthly_budget_usd
    if budget is None:
        return findings
    lines = cost_lines(resources)
    total = sum(line.monthly_usd or 0.0 for line in lines)
    if total <= budget:
        return findings
    top = sorted((x for x in lines if x.monthly_usd), key=lambda x: -(x.monthly_usd or 0))[:3]
    biggest = ", ".join(f"{x.name} ${x.monthly_usd:,.0f}" for x in top)
    unpriced = [x.name for x in lines if x.monthly_usd is None]
    findings.violate(
        f"estimated GPU cost ${total:,.0f}/month exceeds the budget of ${budget:,.0f}/month "
        f"(largest: {biggest})" + (f"; not priced: {', '.join(unpriced)}" if unpriced else "")
    )
    return findings


POLICY = stack_policy(
    "gpu-budget",
    "The stack's estimated monthly GPU cost stays within the environment's budget.",
    check_budget,
    config=CONFIG,
    remediation_steps="Use spot / low-priority capacity, smaller groups or machines "
    "(gpufleet plan shows the cheapest fit), or raise the environment's monthly_budget_usd.",
)

"""The planner and the cost engine price alike: every placement of the example plan, priced by
the planner, and its generated stack's resources, priced by the engine for the hours the plan
assumes, agree to the cent.

The hours are the plan's (its ``hours_per_month``, spot's interruption overhead as extra hours)
because the stacks do not follow them yet: until they do, the engine's own expected figure is
the stacks' sizes all month. What this pins is everything else: which machine, how many, which
region's rate, spot / on-demand / commitment, SageMaker's markup.
"""

from __future__ import annotations

import pytest

from gpufleet.capacity.cost_engine import Usage, UsageModel, price_stack
from gpufleet.capacity.stack_capacity import StackCapacity
from gpufleet.capacity.stack_resource import stack_resources
from gpufleet.engine.analyzer_resources import from_capture
from gpufleet.engine.program_dir import run_program_dir
from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.optimizer import Planner
from gpufleet.planner.plan import EnvironmentPlan, Placement
from gpufleet.planner.pricing import PricingAssumptions
from gpufleet.planner.spec_loader import load_spec
from tests.helpers import ROOT

EXAMPLE = ROOT / "examples" / "workloads.yaml"


def plan_hours(plan: EnvironmentPlan, assumptions: PricingAssumptions) -> UsageModel:
    """Each resource's hours as the plan prices its part: the base for the placement's hours,
    a burst (built by the ``<workload>-burst`` component) for the burst's, spot with its
    interruption overhead."""
    placements = {p.name: p for p in plan.placements}

    def usage(item: StackCapacity) -> Usage:
        # The component that built it is named after its workload (the stack program's rule);
        # a component priced itself (a job template) has no component above it.
        parent = (item.resource.parent or "").split("::")
        from_component = len(parent) == 4 and parent[2].startswith("gpufleet:")
        component = parent[-1] if from_component else item.resource.name
        burst = component not in placements
        placement: Placement = placements[component.removesuffix("-burst")]
        if burst:
            assert placement.burst is not None
            hours, pricing, nodes = placement.burst.hours_per_month, placement.burst.pricing, 1
        else:
            hours, pricing = placement.hours_per_month, placement.pricing
            nodes = 1 if placement.kind == "inference" else placement.instances
        if pricing == "spot":
            hours *= assumptions.spot_multiplier(placement.cloud, nodes)
        return Usage(item.footprint.max_units, hours, "the plan's hours")

    return usage


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_every_placement_of_the_example_plan_is_priced_alike(env: str) -> None:
    catalog = load_catalog()
    planner = Planner(load_spec(EXAMPLE, catalog), catalog)
    plan = planner.plan_environment(env)
    capture = run_program_dir(ROOT, env)
    cost = price_stack(
        stack_resources(from_capture(capture)),
        planner.rates,
        usage=plan_hours(plan, planner.assumptions),
    )
    engine = {w.name: w for w in cost.workloads}
    assert sorted(engine) == sorted(p.name for p in plan.placements)
    for placement in plan.placements:
        lines = engine[placement.name].resources
        assert all(r.unpriced is None and not r.estimated for r in lines), lines
        priced = sum(r.expected.monthly_usd or 0.0 for r in lines)
        assert priced == pytest.approx(placement.monthly_usd, abs=0.01), placement.name

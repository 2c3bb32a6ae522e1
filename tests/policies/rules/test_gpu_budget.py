"""The ``gpu-budget`` rule through the servicer the pack serves: resources that must pass and
resources that must fail, as users write them."""

from __future__ import annotations

from gpufleet.policies.testing import PolicyHarness, StackInput
from tests.policies.inputs import LT, SECURE_LT, asg_from_template


def test_budget_counts_spot_and_on_demand_prices() -> None:
    from gpufleet.policies.footprints import read_gpu_footprint
    from gpufleet.policies.rules.gpu_budget import monthly_cost

    def cost(market: str) -> float:
        footprint = read_gpu_footprint(
            "azure-native:compute:VirtualMachineScaleSet",
            {
                "location": "eastus",
                "sku": {"name": "Standard_NC24ads_A100_v4", "capacity": 2},
                "virtualMachineProfile": {"priority": market},
            },
        )
        assert footprint is not None
        value, why = monthly_cost(footprint)
        assert value is not None, why
        return value

    assert 0 < cost("Spot") < cost("Regular")


def test_budget_over_and_under() -> None:
    template = StackInput(LT, {**SECURE_LT, "instanceType": "p5.48xlarge"}, "tpl")
    group = asg_from_template(2, template.urn("dev"))
    over = PolicyHarness(config={"gpu-budget": {"monthlyBudgetUsd": 1000}})
    found = [v for v in over.analyze_stack([template, group]) if v.policy == "gpu-budget"]
    assert len(found) == 1 and "exceeds the budget of $1,000/month" in found[0].message
    under = PolicyHarness(config={"gpu-budget": {"monthlyBudgetUsd": 10_000_000}})
    assert [v for v in under.analyze_stack([template, group]) if v.policy == "gpu-budget"] == []

"""Policy pack config files reconciled and validated against each policy's schema."""

from __future__ import annotations

import pytest

from gpufleet.checks.policy_config import PolicyConfigError
from gpufleet.policies.testing import PolicyHarness


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        ({"required-tags": {"keys": "owner"}}, "required-tags.keys: 'owner' is not of type"),
        ({"gpu-budget": {"monthlyBudgetUsd": -5}}, "gpu-budget.monthlyBudgetUsd: -5"),
        ({"gpu-fleet-size": {"maxGpuPerFleet": 4}}, "Additional properties are not allowed"),
        ({"required-tag": "mandatory"}, "required-tag: no such policy"),
        ({"all": "strict"}, "enforcement level 'strict' is not one of"),
        (
            {"required-tags": {"suppressions": [{"resource": "x", "reason": "no"}]}},
            "suppressions.0.reason: 'no' is too short",
        ),
    ],
)
def test_config_violating_a_schema_is_an_error(config: dict, problem: str) -> None:
    with pytest.raises(PolicyConfigError) as exc:
        PolicyHarness(config=config)
    assert any(problem in p for p in exc.value.problems), exc.value.problems

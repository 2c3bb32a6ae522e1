"""What a resource policy read of a resource, the stack policies reuse only when the stack holds
the same resource read the same way: an export's state may differ from its inputs, if only in a
value's type, and the stack is then read again."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpufleet.capacity import footprints, stack_capacity
from gpufleet.engine.analyzer_resources import AnalyzerResource, ProviderRef
from gpufleet.policies.pack import CONFIG_DIR
from gpufleet.policies.testing import PolicyHarness

LT = "aws:ec2/launchTemplate:LaunchTemplate"
ASG = "aws:autoscaling/group:Group"
AWS = ProviderRef(
    "pulumi:providers:aws",
    "urn:pulumi:prod::shared::pulumi:providers:aws::default",
    "default",
    {"region": "us-east-1"},
)
TAGS = {"project": "p", "owner": "o", "cost-center": "c", "environment": "prod"}


@pytest.fixture(scope="module")
def prod() -> PolicyHarness:
    config = json.loads((CONFIG_DIR / "prod.json").read_text())
    return PolicyHarness(config=config, stack="prod")


def _stack(group_state: dict[str, Any]) -> list[AnalyzerResource]:
    lt_urn = f"urn:pulumi:prod::shared::{LT}::lt"
    template = {
        "instanceType": "g5.12xlarge",
        "metadataOptions": {"httpTokens": "required"},
        "tags": TAGS,
    }
    group = {
        "maxSize": 1,
        "desiredCapacity": 1,
        "launchTemplate": {"id": "lt-1"},
        "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()],
    }
    return [
        AnalyzerResource(lt_urn, LT, "lt", True, template, template, provider=AWS),
        AnalyzerResource(
            f"urn:pulumi:prod::shared::{ASG}::group",
            ASG,
            "group",
            True,
            group,
            {**group, **group_state},
            provider=AWS,
            property_dependencies={"launchTemplate": [lt_urn]},
        ),
    ]


def _undetermined(prod: PolicyHarness, resources: list[AnalyzerResource]) -> list[str]:
    return [v.message for v in prod.check(resources) if v.policy == "gpu-size-undetermined"]


def test_the_stack_reuses_what_the_resource_policies_read(
    prod: PolicyHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[str] = []
    real = footprints.read_gpu_footprints

    def counted(type_: str, *args: Any, **kwargs: Any) -> Any:
        reads.append(type_)
        return real(type_, *args, **kwargs)

    # Both the resource policies' reader and the stack's default one.
    monkeypatch.setattr("gpufleet.policies.shared_reads.read_gpu_footprints", counted)
    monkeypatch.setattr(stack_capacity, "read_gpu_footprints", counted)
    assert _undetermined(prod, _stack({})) == []
    assert sorted(reads) == [ASG, LT]  # once each: the stack read none again


def test_a_state_equal_only_in_value_is_read_again(prod: PolicyHarness) -> None:
    # The inputs say 1, the state says true (== 1): the stack must not take the inputs' read.
    assert _undetermined(prod, _stack({})) == []
    found = _undetermined(prod, _stack({"maxSize": True}))
    assert found and "maxSize True is not a number" in found[0]


def test_a_state_that_differs_is_read_as_it_is(prod: PolicyHarness) -> None:
    budget = [v for v in prod.check(_stack({"maxSize": "unreadable"})) if "maxSize" in v.message]
    assert budget, "the state's own maxSize was not read"

"""The ``gpu-size-undetermined`` rule through the servicer the pack serves: resources that must
pass and resources that must fail, as users write them."""

from __future__ import annotations

from gpufleet.engine.wire import INVOKE_PLACEHOLDER
from gpufleet.policies.testing import UNKNOWN, PolicyHarness, StackInput
from tests.policies.inputs import LT, SECURE_LT


def test_undetermined_gpu_size_blocks_but_a_previews_unknown_is_advisory() -> None:
    """Fail closed: a type the catalog does not know could be any size, so it blocks; a value
    only a preview does not know is settled by deploying, as Pulumi treats it."""
    harness = PolicyHarness(dry_run=True)
    resources = [
        StackInput(LT, {**SECURE_LT, "instanceType": UNKNOWN}, "unknown-type"),
        StackInput(LT, {**SECURE_LT, "instanceType": "p9.96xlarge"}, "future-type"),
        StackInput(LT, {**SECURE_LT, "instanceType": "m7i.large"}, "cpu-only"),
    ]
    found = {
        v.urn.rsplit("::", 1)[1]: v
        for v in harness.analyze_stack(resources)
        if v.policy == "gpu-size-undetermined"
    }
    assert set(found) == {"unknown-type", "future-type"}
    assert found["unknown-type"].level == "advisory"
    assert found["future-type"].level == "mandatory"
    assert "acknowledge it" in found["future-type"].message


def test_a_type_without_a_sizer_and_an_invokes_value_block_by_default() -> None:
    """A cluster of a type read by name, and a template whose type comes from an invoke (known
    in a real preview, never offline, where the gate runs)."""
    harness = PolicyHarness()
    resources = [
        StackInput(
            "aws:codecatalyst/devEnvironment:DevEnvironment",
            {"instanceType": "p3.8xlarge"},
            "dev-env",
        ),
        StackInput(LT, {**SECURE_LT, "instanceType": INVOKE_PLACEHOLDER}, "from-invoke"),
    ]
    found = [v for v in harness.analyze_stack(resources) if v.policy == "gpu-size-undetermined"]
    assert {v.urn.rsplit("::", 1)[1] for v in found} == {"dev-env", "from-invoke"}
    assert {v.level for v in found} == {"mandatory"}
    messages = " ".join(v.message for v in found)
    assert "reads no size" in messages and "comes from an invoke" in messages


def test_a_type_or_urn_is_made_advisory_with_its_reason_and_a_suppression_drops_it() -> None:
    config = {
        "gpu-size-undetermined": {
            "advisory": [
                {"type": LT, "reason": "launch templates here are reviewed by the infra team"}
            ],
            "suppressions": [{"resource": "from-invoke", "reason": "the SSM value is g6.xlarge"}],
        }
    }
    harness = PolicyHarness(config=config)
    resources = [
        StackInput(LT, {**SECURE_LT, "instanceType": "p9.96xlarge"}, "future-type"),
        StackInput(LT, {**SECURE_LT, "instanceType": INVOKE_PLACEHOLDER}, "from-invoke"),
    ]
    found = [v for v in harness.analyze_stack(resources) if v.policy == "gpu-size-undetermined"]
    assert [(v.urn.rsplit("::", 1)[1], v.level) for v in found] == [("future-type", "advisory")]
    assert found[0].message.endswith(
        "(advisory by the policy config: launch templates here are reviewed by the infra team)"
    )
    by_urn = PolicyHarness(
        config={
            "gpu-size-undetermined": {
                "advisory": [{"resource": "*::future-*", "reason": "a reviewed future type"}]
            }
        }
    )
    levels = {
        v.urn.rsplit("::", 1)[1]: v.level
        for v in by_urn.analyze_stack(resources)
        if v.policy == "gpu-size-undetermined"
    }
    assert levels == {"future-type": "advisory", "from-invoke": "mandatory"}

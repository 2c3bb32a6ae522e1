"""The ``gpu-size-undetermined`` rule through the servicer the pack serves: resources that must
pass and resources that must fail, as users write them."""

from __future__ import annotations

from gpufleet.engine.wire import INVOKE_PLACEHOLDER
from gpufleet.policies.testing import UNKNOWN, PolicyHarness, StackInput
from tests.policies.inputs import LT, SECURE_LT


def test_undetermined_gpu_size_is_reported_not_ignored() -> None:
    harness = PolicyHarness(dry_run=True)
    resources = [
        StackInput(LT, {**SECURE_LT, "instanceType": UNKNOWN}, "unknown-type"),
        StackInput(LT, {**SECURE_LT, "instanceType": "p9.96xlarge"}, "future-type"),
        StackInput(LT, {**SECURE_LT, "instanceType": "m7i.large"}, "cpu-only"),
    ]
    found = [v for v in harness.analyze_stack(resources) if v.policy == "gpu-size-undetermined"]
    assert {v.urn.rsplit("::", 1)[1] for v in found} == {"unknown-type", "future-type"}
    assert {v.level for v in found} == {"advisory"}


def test_an_environment_can_make_it_mandatory() -> None:
    """A cluster of a type read by name, and a template whose type comes from an invoke."""
    harness = PolicyHarness(config={"gpu-size-undetermined": "mandatory"})
    resources = [
        StackInput(
            "aws:emr/cluster:Cluster",
            {"coreInstanceGroup": {"instanceType": "p3.8xlarge", "instanceCount": 4}},
            "emr",
        ),
        StackInput(LT, {**SECURE_LT, "instanceType": INVOKE_PLACEHOLDER}, "from-invoke"),
    ]
    found = [v for v in harness.analyze_stack(resources) if v.policy == "gpu-size-undetermined"]
    assert {v.urn.rsplit("::", 1)[1] for v in found} == {"emr", "from-invoke"}
    assert {v.level for v in found} == {"mandatory"}
    messages = " ".join(v.message for v in found)
    assert "reads no size" in messages and "comes from an invoke" in messages

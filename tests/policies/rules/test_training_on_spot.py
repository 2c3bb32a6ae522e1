"""The ``training-on-spot`` rule through the servicer the pack serves: resources that must pass and
resources that must fail, as users write them."""

from __future__ import annotations

from gpufleet.policies.testing import PolicyHarness, StackInput
from tests.policies.inputs import LT, SECURE_LT, asg_from_template


def test_training_on_spot(dev: PolicyHarness) -> None:
    training_tags = [{"key": "workload-kind", "value": "training"}]
    template = StackInput(LT, {**SECURE_LT, "instanceType": "g5.xlarge"}, "tpl")
    on_demand = asg_from_template(1, template.urn("dev"), tags=training_tags)
    found = [v for v in dev.analyze_stack([template, on_demand]) if v.policy == "training-on-spot"]
    assert len(found) == 1
    spot_mix = {
        "mixedInstancesPolicy": {
            "instancesDistribution": {"onDemandPercentageAboveBaseCapacity": 0},
            "launchTemplate": {"overrides": [{"instanceType": "g5.xlarge"}]},
        }
    }
    spot = asg_from_template(1, template.urn("dev"), tags=training_tags, **spot_mix)
    assert [v for v in dev.analyze_stack([template, spot]) if v.policy == "training-on-spot"] == []
    serving = asg_from_template(1, template.urn("dev"))
    assert [
        v for v in dev.analyze_stack([template, serving]) if v.policy == "training-on-spot"
    ] == []

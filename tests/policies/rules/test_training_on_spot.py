"""The ``training-on-spot`` rule through the servicer the pack serves: resources that must pass and
resources that must fail, as users write them."""

from __future__ import annotations

from gpufleet.policies.testing import PolicyHarness, StackInput
from tests.policies.inputs import GCP_TEMPLATE, LT, MIG, SECURE_LT, TAGS, asg_from_template


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


def test_training_on_a_groups_on_demand_fixed_version_is_not_spot(dev: PolicyHarness) -> None:
    """A MIG of a fixed on-demand version under a Spot rest runs training on-demand too."""
    labels = {**TAGS, "workload-kind": "training"}
    link = "https://www.googleapis.com/compute/v1/projects/p/global/instanceTemplates/"

    def template(name: str, model: str) -> StackInput:
        props = {
            "labels": labels,
            "machineType": "a3-highgpu-8g",
            "selfLink": f"{link}{name}",
            "scheduling": {"provisioningModel": model},
        }
        return StackInput(GCP_TEMPLATE, props, name)

    base, rest = template("base", "STANDARD"), template("rest", "SPOT")
    mig = StackInput(
        MIG,
        {
            "targetSize": 4,
            "versions": [
                {"instanceTemplate": f"{link}base", "targetSize": {"fixed": 3}},
                {"instanceTemplate": f"{link}rest"},
            ],
        },
        "g",
        property_dependencies={"versions": [base.urn("dev"), rest.urn("dev")]},
    )
    found = [v for v in dev.analyze_stack([base, rest, mig]) if v.policy == "training-on-spot"]
    assert [v.message for v in found] == [
        "training managed instance group g's fixed version runs on_demand; training here must "
        "use spot / low-priority capacity (with checkpoints)"
    ]

"""The ``gpu-instance-size`` rule through the servicer the pack serves: resources that must pass
and resources that must fail, as users write them."""

from __future__ import annotations

import pytest

from gpufleet.policies.testing import PolicyHarness
from tests.policies.inputs import ASG, GCP_TEMPLATE, LT, SECURE_LT, TAGS


@pytest.mark.parametrize(
    ("type_", "props"),
    [
        (LT, {**SECURE_LT, "instanceType": "p5.48xlarge"}),
        ("aws:ec2/instance:Instance", {**SECURE_LT, "instanceType": "p4d.24xlarge"}),
        (
            "aws:sagemaker/trainingJob:TrainingJob",
            {"tags": TAGS, "resourceConfig": {"instanceType": "ml.p4d.24xlarge"}},
        ),
        (
            ASG,
            {
                "maxSize": 0,
                "tags": [{"key": k, "value": v} for k, v in TAGS.items()],
                "mixedInstancesPolicy": {
                    "launchTemplate": {"overrides": [{"instanceType": "p5.48xlarge"}]}
                },
            },
        ),
        (GCP_TEMPLATE, {"labels": TAGS, "machineType": "a3-highgpu-8g"}),
        (
            "gcp:compute/instance:Instance",
            {
                "labels": TAGS,
                "machineType": "n1-standard-32",
                "guestAccelerators": [{"type": "nvidia-tesla-v100", "count": 8}],
            },
        ),
        (
            "azure-native:compute:VirtualMachineScaleSet",
            {"tags": TAGS, "sku": {"name": "Standard_ND96asr_v4", "capacity": 0}},
        ),
    ],
)
def test_gpu_instance_size_over_the_limit_fails(type_: str, props: dict) -> None:
    harness = PolicyHarness(config={"gpu-instance-size": {"maxGpusPerInstance": 4}})
    found = [v for v in harness.analyze(type_, props) if v.policy == "gpu-instance-size"]
    assert len(found) == 1 and "at most 4 GPUs per instance" in found[0].message


def test_gpu_instance_size_allowed_types() -> None:
    harness = PolicyHarness(config={"gpu-instance-size": {"allowedGpuTypes": ["l4", "T4"]}})
    assert harness.analyze(GCP_TEMPLATE, {"labels": TAGS, "machineType": "g2-standard-8"}) == []
    found = harness.analyze(GCP_TEMPLATE, {"labels": TAGS, "machineType": "a2-highgpu-1g"})
    assert [v.message for v in found] == ["a2-highgpu-1g carries A100; allowed here: L4, T4"]


def test_non_gpu_machines_are_not_gpu_resources(dev: PolicyHarness) -> None:
    assert dev.analyze(LT, {**SECURE_LT, "instanceType": "m7i.large"}) == []

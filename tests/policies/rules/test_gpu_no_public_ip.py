"""The ``gpu-no-public-ip`` rule through the servicer the pack serves: resources that must pass and
resources that must fail, as users write them."""

from __future__ import annotations

import pytest

from gpufleet.policies.testing import PolicyHarness
from tests.policies.inputs import GCP_TEMPLATE, LT, SECURE_LT, TAGS, aml_cluster


@pytest.mark.parametrize(
    ("type_", "props"),
    [
        (
            LT,
            {
                **SECURE_LT,
                "instanceType": "g5.xlarge",
                "networkInterfaces": [{"associatePublicIpAddress": "true"}],
            },
        ),
        (
            "aws:ec2/instance:Instance",
            {**SECURE_LT, "instanceType": "g6.xlarge", "associatePublicIpAddress": True},
        ),
        (
            GCP_TEMPLATE,
            {
                "labels": TAGS,
                "machineType": "g2-standard-4",
                "networkInterfaces": [{"accessConfigs": [{}]}],
            },
        ),
        (
            "azure-native:machinelearningservices:Compute",
            {k: v for k, v in aml_cluster().items()}
            | {
                "properties": {
                    "computeType": "AmlCompute",
                    "properties": {"vmSize": "Standard_NC4as_T4_v3"},
                }
            },
        ),
    ],
)
def test_gpu_public_ip_fails(dev: PolicyHarness, type_: str, props: dict) -> None:
    assert [v.policy for v in dev.analyze(type_, props)] == ["gpu-no-public-ip"]


def test_public_ip_on_cpu_machines_is_not_this_policy(dev: PolicyHarness) -> None:
    props = {
        **SECURE_LT,
        "instanceType": "t3.micro",
        "networkInterfaces": [{"associatePublicIpAddress": "true"}],
    }
    assert dev.analyze(LT, props) == []

"""Resources as users write them, for the policy tests: type tokens spelled out (the tests are
an oracle for the SDK's names, so they do not import ours), the dev tags, an IMDSv2 launch
template, an ASG launched from a template."""

from __future__ import annotations

from typing import Any

from gpufleet.policies.testing import UNKNOWN, StackInput, Violation

TAGS = {"project": "p", "owner": "o", "cost-center": "c", "environment": "dev"}
LT = "aws:ec2/launchTemplate:LaunchTemplate"
ASG = "aws:autoscaling/group:Group"
GCP_TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
MIG = "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager"
SECURE_LT = {"metadataOptions": {"httpTokens": "required"}, "tags": TAGS}


def policies_of(violations: list[Violation]) -> list[tuple[str, str]]:
    return sorted((v.policy, v.level) for v in violations)


def asg_from_template(max_size: float, template_urn: str, **extra: Any) -> StackInput:
    """An Auto Scaling group named ``group`` of ``max_size`` instances (min and max), whose
    launch template id is unknown (a preview), linked to the template by its property
    dependency."""
    return StackInput(
        ASG,
        {"minSize": max_size, "maxSize": max_size, "launchTemplate": {"id": UNKNOWN}, **extra},
        "group",
        property_dependencies={"launchTemplate": [template_urn]},
    )


def aml_cluster(**inner: Any) -> dict[str, Any]:
    """An Azure ML compute cluster's properties: dev-tagged, T4 nodes, no public IPs; ``inner``
    sets more of the cluster's own properties."""
    return {
        "tags": TAGS,
        "location": "eastus2",
        "properties": {
            "computeType": "AmlCompute",
            "properties": {"vmSize": "Standard_NC4as_T4_v3", "enableNodePublicIp": False, **inner},
        },
    }

"""Rule ``imdsv2-required``: every EC2 launch template, launch configuration, instance and spot
instance request requires IMDSv2
(``metadataOptions.httpTokens: required``) or disables the metadata endpoint; an instance
launched from a template takes the template's settings, checked there."""

from __future__ import annotations

from pulumi_policy import Severity

from gpufleet import resource_types as types
from gpufleet.capacity.property_values import get_path, is_unknown
from gpufleet.policies.policy_builders import Findings, ResourceView, Settings, resource_policy
from gpufleet.policy_tags import SECURITY


def check_imdsv2(resource: ResourceView, settings: Settings) -> Findings:
    findings = Findings()
    if resource.props.get("metadataOptions") is None and resource.props.get("launchTemplate"):
        return findings  # the instance takes its launch template's settings, checked there
    tokens = get_path(resource.props, "metadataOptions", "httpTokens")
    endpoint = get_path(resource.props, "metadataOptions", "httpEndpoint")
    if is_unknown(tokens) or is_unknown(endpoint):
        findings.unknown = (["metadataOptions"], tokens if is_unknown(tokens) else endpoint)
    elif tokens != "required" and endpoint != "disabled":
        findings.violate(
            "instance metadata allows IMDSv1; set metadataOptions.httpTokens: required"
        )
    return findings


POLICY = resource_policy(
    "imdsv2-required",
    "EC2 launch templates, launch configurations and instances require IMDSv2.",
    check_imdsv2,
    config={},
    display_name="IMDSv2 required on EC2",
    tags=[SECURITY],
    severity=Severity.HIGH,
    applies_to={
        types.AWS_LAUNCH_TEMPLATE,
        types.AWS_INSTANCE,
        types.AWS_SPOT_INSTANCE_REQUEST,
        types.AWS_LAUNCH_CONFIGURATION,
    },
)

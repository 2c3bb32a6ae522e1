"""Rule ``gpu-no-public-ip``: GPU machines get no public IP.

Looked at: launch templates and instances (``associatePublicIpAddress``), Spot Fleet launch
specifications, GCP instances and templates (``accessConfigs``), Azure scale sets
(``publicIPAddressConfiguration``) and Azure ML clusters (``enableNodePublicIp`` must be false:
Azure's default is a public IP per node). Only resources that hold GPUs are judged.
"""

from __future__ import annotations

from typing import Any

from pulumi_policy import Severity

from gpufleet import resource_types as types
from gpufleet.capacity.property_values import as_list, camel_keys, get_path, is_unknown
from gpufleet.policies.policy_builders import Findings, ResourceView, Settings, resource_policy
from gpufleet.policies.shared_reads import shared_gpu_footprints
from gpufleet.policy_tags import SECURITY


def _truthy(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.lower() == "true")


def _public_ip_settings(resource: ResourceView) -> list[tuple[list[str | int], Any, bool]]:
    """(path, value, is_public) for each setting that could give the machine a public IP."""
    props = resource.props
    found: list[tuple[list[str | int], Any, bool]] = []
    if resource.type == types.AWS_LAUNCH_TEMPLATE:
        for i, nic in enumerate(as_list(props.get("networkInterfaces"))):
            value = get_path(nic, "associatePublicIpAddress")
            found.append(
                (["networkInterfaces", i, "associatePublicIpAddress"], value, _truthy(value))
            )
    elif resource.type in (
        types.AWS_INSTANCE,
        types.AWS_SPOT_INSTANCE_REQUEST,
        types.AWS_LAUNCH_CONFIGURATION,
    ):
        value = props.get("associatePublicIpAddress")
        found.append((["associatePublicIpAddress"], value, _truthy(value)))
    elif resource.type == types.AWS_SPOT_FLEET_REQUEST:
        for i, spec in enumerate(as_list(props.get("launchSpecifications"))):
            value = get_path(spec, "associatePublicIpAddress")
            path: list[str | int] = ["launchSpecifications", i, "associatePublicIpAddress"]
            found.append((path, value, _truthy(value)))
    elif resource.type in (types.GCP_INSTANCE, *types.GCP_INSTANCE_TEMPLATES):
        for i, nic in enumerate(as_list(props.get("networkInterfaces"))):
            for key in ("accessConfigs", "ipv6AccessConfigs"):
                value = get_path(nic, key)
                found.append((["networkInterfaces", i, key], value, bool(value)))
    elif resource.type == types.AKS_AGENT_POOL:
        value = props.get("enableNodePublicIP")
        found.append((["enableNodePublicIP"], value, value is True))
    elif resource.type == types.AKS_MANAGED_CLUSTER:
        for i, pool in enumerate(as_list(props.get("agentPoolProfiles"))):
            value = get_path(pool, "enableNodePublicIP")
            found.append((["agentPoolProfiles", i, "enableNodePublicIP"], value, value is True))
    elif resource.type == types.AZURE_SCALE_SET:
        nics = get_path(
            props, "virtualMachineProfile", "networkProfile", "networkInterfaceConfigurations"
        )
        for i, nic in enumerate(as_list(nics)):
            for j, ip in enumerate(as_list(get_path(nic, "ipConfigurations"))):
                value = get_path(ip, "publicIPAddressConfiguration")
                path = ["networkInterfaceConfigurations", i, "ipConfigurations", j]
                found.append(([*path, "publicIPAddressConfiguration"], value, value is not None))
    elif resource.type == types.AZURE_ML_COMPUTE:
        inner = get_path(camel_keys(props), "properties", "properties")  # a union: see camel_keys
        value = get_path(inner, "enableNodePublicIp")
        # Azure gives every node a public IP unless told not to.
        found.append(
            (["properties", "properties", "enableNodePublicIp"], value, value is not False)
        )
    return found


def check_no_public_ip(resource: ResourceView, settings: Settings) -> Findings:
    findings = Findings()
    if not shared_gpu_footprints(resource):
        return findings  # not a GPU machine
    unknown = None
    for path, value, public in _public_ip_settings(resource):
        if is_unknown(value):
            unknown = (path, value)
        elif public:
            where = ".".join(str(p) for p in path)
            findings.violate(f"GPU machines get a public IP ({where}); reach them privately")
    if unknown is not None:
        findings.unknown = unknown
    return findings


POLICY = resource_policy(
    "gpu-no-public-ip",
    "GPU machines get no public IP address.",
    check_no_public_ip,
    config={},
    display_name="No public IP on GPU machines",
    tags=[SECURITY],
    severity=Severity.HIGH,
    applies_to={
        types.AWS_LAUNCH_TEMPLATE,
        types.AWS_INSTANCE,
        types.AWS_SPOT_INSTANCE_REQUEST,
        types.AWS_LAUNCH_CONFIGURATION,
        types.AWS_SPOT_FLEET_REQUEST,
        types.AKS_AGENT_POOL,
        types.AKS_MANAGED_CLUSTER,
        types.GCP_INSTANCE,
        *types.GCP_INSTANCE_TEMPLATES,
        types.AZURE_SCALE_SET,
        types.AZURE_ML_COMPUTE,
    },
    remediation_steps="Put GPU machines in private subnets; reach them through SSM, "
    "IAP or Bastion, and the internet through NAT.",
)

"""Rules: GPU machines and the data they write are not exposed.

- ``gpu-no-public-ip``: GPU machines get no public IP — launch templates and instances
  (``associatePublicIpAddress``), Spot Fleet launch specifications, GCP instances and templates
  (``accessConfigs``), Azure scale sets (``publicIPAddressConfiguration``) and Azure ML clusters
  (``enableNodePublicIp`` must be false: Azure's default is a public IP per node).
- ``imdsv2-required``: every EC2 launch template and instance requires IMDSv2
  (``metadataOptions.httpTokens: required``) or disables the metadata endpoint.
- ``checkpoint-bucket-private``: buckets holding checkpoints (name matching
  ``checkpointBucketPattern``) block public access and are encrypted: S3 with a public access
  block (all four settings) and a server-side encryption configuration; GCS with
  ``publicAccessPrevention: enforced`` and uniform bucket-level access; Azure storage accounts
  with ``allowBlobPublicAccess: false`` (GCS and Azure always encrypt at rest).
"""

from __future__ import annotations

import re
from typing import Any

from pulumi_policy import ResourceValidationPolicy, StackValidationPolicy

from gpufleet.policies.gpu_footprint import shared_gpu_footprint
from gpufleet.policies.policy_builders import (
    Findings,
    ResourceView,
    Settings,
    StackResource,
    resource_policy,
    stack_policy,
)
from gpufleet.policies.properties import as_list, get_path, is_unknown

LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
EC2_INSTANCE = "aws:ec2/instance:Instance"
SPOT_FLEET = "aws:ec2/spotFleetRequest:SpotFleetRequest"
GCP_INSTANCE = "gcp:compute/instance:Instance"
GCP_TEMPLATES = (
    "gcp:compute/instanceTemplate:InstanceTemplate",
    "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
)
AZURE_SCALE_SET = "azure-native:compute:VirtualMachineScaleSet"
AML_COMPUTE = "azure-native:machinelearningservices:Compute"
S3_BUCKETS = ("aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2")
S3_PUBLIC_ACCESS_BLOCK = "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock"
S3_ENCRYPTION = (
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
    "aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2",
)
GCS_BUCKET = "gcp:storage/bucket:Bucket"
AZURE_STORAGE = "azure-native:storage:StorageAccount"
_PUBLIC_BLOCK_FLAGS = (
    "blockPublicAcls",
    "blockPublicPolicy",
    "ignorePublicAcls",
    "restrictPublicBuckets",
)

BUCKET_CONFIG = {
    "checkpointBucketPattern": {
        "type": "string",
        "minLength": 1,
        "format": "regex",
        "default": "checkpoint|ckpt",
        "description": "Regex (case-insensitive) on a bucket's resource or bucket name.",
    },
}


def _truthy(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.lower() == "true")


def _public_ip_settings(resource: ResourceView) -> list[tuple[list[str | int], Any, bool]]:
    """(path, value, is_public) for each setting that could give the machine a public IP."""
    props = resource.props
    found: list[tuple[list[str | int], Any, bool]] = []
    if resource.type == LAUNCH_TEMPLATE:
        for i, nic in enumerate(as_list(props.get("networkInterfaces"))):
            value = get_path(nic, "associatePublicIpAddress")
            found.append(
                (["networkInterfaces", i, "associatePublicIpAddress"], value, _truthy(value))
            )
    elif resource.type == EC2_INSTANCE:
        value = props.get("associatePublicIpAddress")
        found.append((["associatePublicIpAddress"], value, _truthy(value)))
    elif resource.type == SPOT_FLEET:
        for i, spec in enumerate(as_list(props.get("launchSpecifications"))):
            value = get_path(spec, "associatePublicIpAddress")
            path: list[str | int] = ["launchSpecifications", i, "associatePublicIpAddress"]
            found.append((path, value, _truthy(value)))
    elif resource.type in (GCP_INSTANCE, *GCP_TEMPLATES):
        for i, nic in enumerate(as_list(props.get("networkInterfaces"))):
            for key in ("accessConfigs", "ipv6AccessConfigs"):
                value = get_path(nic, key)
                found.append((["networkInterfaces", i, key], value, bool(value)))
    elif resource.type == AZURE_SCALE_SET:
        nics = get_path(
            props, "virtualMachineProfile", "networkProfile", "networkInterfaceConfigurations"
        )
        for i, nic in enumerate(as_list(nics)):
            for j, ip in enumerate(as_list(get_path(nic, "ipConfigurations"))):
                value = get_path(ip, "publicIPAddressConfiguration")
                path = ["networkInterfaceConfigurations", i, "ipConfigurations", j]
                found.append(([*path, "publicIPAddressConfiguration"], value, value is not None))
    elif resource.type == AML_COMPUTE:
        value = get_path(props, "properties", "properties", "enableNodePublicIp")
        # Azure gives every node a public IP unless told not to.
        found.append(
            (["properties", "properties", "enableNodePublicIp"], value, value is not False)
        )
    return found


def check_no_public_ip(resource: ResourceView, settings: Settings) -> Findings:
    findings = Findings()
    if shared_gpu_footprint(resource.type, resource.props, resource.provider_props) is None:
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


def _bucket_names(resource: StackResource) -> list[str]:
    names = [resource.name]
    for key in ("bucket", "bucketPrefix", "name", "accountName"):
        value = resource.props.get(key)
        if isinstance(value, str) and not is_unknown(value):
            names.append(value)
    return names


def _attached(resources: list[StackResource], types: tuple[str, ...], bucket: StackResource):
    """Resources of ``types`` configuring ``bucket`` (by dependency, or by its known name)."""
    names = {n for n in _bucket_names(bucket)[1:]}
    for r in resources:
        if r.type not in types:
            continue
        target = r.props.get("bucket")
        if bucket.urn in r.property_dependencies.get("bucket", []) or (
            isinstance(target, str) and target in names
        ):
            yield r


def check_checkpoint_buckets(resources: list[StackResource], settings: Settings) -> Findings:
    findings = Findings()
    pattern = re.compile(settings["checkpointBucketPattern"], re.I)
    for bucket in resources:
        if bucket.type not in (*S3_BUCKETS, GCS_BUCKET, AZURE_STORAGE):
            continue
        if not any(pattern.search(n) for n in _bucket_names(bucket)):
            continue
        for problem in _bucket_problems(resources, bucket):
            findings.violate(f"checkpoint bucket {bucket.name}: {problem}", bucket.urn)
    return findings


def _bucket_problems(resources: list[StackResource], bucket: StackResource) -> list[str]:
    props = bucket.props
    problems = []
    if bucket.type in S3_BUCKETS:
        blocks = list(_attached(resources, (S3_PUBLIC_ACCESS_BLOCK,), bucket))
        if not any(all(b.props.get(f) is True for f in _PUBLIC_BLOCK_FLAGS) for b in blocks):
            problems.append("no public access block with all of " + ", ".join(_PUBLIC_BLOCK_FLAGS))
        if props.get("acl") in ("public-read", "public-read-write", "authenticated-read"):
            problems.append(f"acl {props['acl']} makes it readable outside the account")
        encrypted = props.get("serverSideEncryptionConfiguration") or list(
            _attached(resources, S3_ENCRYPTION, bucket)
        )
        if not encrypted:
            problems.append("no server-side encryption configuration")
    elif bucket.type == GCS_BUCKET:
        if props.get("publicAccessPrevention") != "enforced":
            problems.append("publicAccessPrevention is not enforced")
        if props.get("uniformBucketLevelAccess") is not True:
            problems.append("uniformBucketLevelAccess is off (object ACLs can make files public)")
    elif props.get("allowBlobPublicAccess") is not False:
        problems.append("allowBlobPublicAccess is not false")
    return problems


def policies() -> list[ResourceValidationPolicy | StackValidationPolicy]:
    return [
        resource_policy(
            "gpu-no-public-ip",
            "GPU machines get no public IP address.",
            check_no_public_ip,
            config={},
            applies_to={
                LAUNCH_TEMPLATE,
                EC2_INSTANCE,
                SPOT_FLEET,
                GCP_INSTANCE,
                *GCP_TEMPLATES,
                AZURE_SCALE_SET,
                AML_COMPUTE,
            },
            remediation_steps="Put GPU machines in private subnets; reach them through SSM, "
            "IAP or Bastion, and the internet through NAT.",
        ),
        resource_policy(
            "imdsv2-required",
            "EC2 launch templates and instances require IMDSv2.",
            check_imdsv2,
            config={},
            applies_to={LAUNCH_TEMPLATE, EC2_INSTANCE},
        ),
        stack_policy(
            "checkpoint-bucket-private",
            "Checkpoint buckets are private and encrypted.",
            check_checkpoint_buckets,
            config=BUCKET_CONFIG,
        ),
    ]

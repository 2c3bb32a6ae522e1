"""Checks every component test makes on a capture: tags on every taggable child, children
parented and named from the component, and input values a provider would reject (mocks accept
anything, so the allowed values are read from the Pulumi SDKs' enums and the AWS and GCP APIs'
own models (botocore, google-cloud-compute) where those list them, and written down from the
API references where they do not)."""

from __future__ import annotations

import importlib
import inspect
import json
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

import botocore.session
import pulumi_aws as aws
import pulumi_azure_native as azure

from gpufleet.clouds import cloud_of_type, sdk_module
from gpufleet.components.tagging import RequiredTags
from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.gcp_machines import ACCELERATOR_TYPES, N1_GPUS
from gpufleet.runs.gcp_access import compute_v1
from tests.components.pulumi_mocks import Capture, Registration

TAGS = RequiredTags(
    project="acme-ml",
    owner="ml-platform@acme.example",
    cost_center="cc-4200",
    environment="dev",
    workload="trainer",
    extra={"team": "research"},
)


def policy_document(registration: Registration) -> dict[str, Any]:
    """An IAM / bucket / queue policy input as a dict (inputs hold it as JSON text)."""
    document = registration.inputs["policy"]
    return json.loads(document) if isinstance(document, str) else document


@cache
def resource_class(type_token: str) -> type | None:
    """The SDK class for a type token such as ``aws:ec2/launchTemplate:LaunchTemplate``."""
    _, module_path, class_name = type_token.split(":")
    module = module_path.split("/")[0]
    cloud = cloud_of_type(type_token)
    if cloud is None:
        return None
    python_package = sdk_module(cloud)
    name = python_package if module == "index" else f"{python_package}.{module}"
    return getattr(importlib.import_module(name), class_name)


def tag_property(type_token: str) -> str:
    """Where a resource keeps its cost tags: GCP ``labels`` (its ``tags`` are network tags)."""
    return "labels" if type_token.startswith("gcp:") else "tags"


@cache
def taggable(type_token: str) -> bool:
    """Whether the SDK's resource class for ``type_token`` takes tags (GCP: labels)."""
    cls = resource_class(type_token)
    if cls is None:
        return False
    return tag_property(type_token) in inspect.signature(cls._internal_init).parameters


@cache
def deprecated_inputs(type_token: str) -> frozenset[str]:
    """Input names (snake_case) the SDK marks deprecated, and ``*`` if the resource itself is."""
    cls = resource_class(type_token)
    if cls is None:
        return frozenset()
    module = importlib.import_module(cls.__module__)
    found: set[str] = set()
    if "has been deprecated in favor of" in Path(inspect.getfile(module)).read_text():
        found.add("*")
    for args_name in (f"{cls.__name__}Args", f"{cls.__name__}InitArgs"):
        args_cls = getattr(module, args_name, None)
        for name, attr in vars(args_cls or object).items():
            if isinstance(attr, property) and hasattr(attr.fget, "_pulumi_deprecated_callable"):
                found.add(name)
    return frozenset(found)


def assert_nothing_deprecated(capture: Capture) -> None:
    """No registered resource is a deprecated resource or sets a deprecated input (the SDK only
    warns when its Args classes are constructed, not for keyword arguments)."""
    for r in capture.registrations:
        deprecated = deprecated_inputs(r.type)
        assert "*" not in deprecated, f"{r.type} is deprecated"
        used = {re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower() for key in r.inputs}
        assert not used & deprecated, f"{r.name} sets deprecated {sorted(used & deprecated)}"


def tags_of(inputs: dict[str, Any], prop: str = "tags") -> dict[str, str] | None:
    """A resource's tags as a dict: most resources take a map, Auto Scaling groups a list of
    ``{key, value, propagateAtLaunch}``."""
    tags = inputs.get(prop)
    if isinstance(tags, list):
        return {t["key"]: t["value"] for t in tags}
    return tags


def assert_tagged(capture: Capture, tags: RequiredTags = TAGS) -> int:
    """Every taggable custom resource carries the required tags and the user's; returns how many
    resources were checked (so a test can tell the check was not vacuous)."""
    checked = 0
    for r in capture.registrations:
        if not r.custom or not taggable(r.type):
            continue
        checked += 1
        prop = tag_property(r.type)
        expected = tags.as_labels() if prop == "labels" else tags.as_tags()
        assert tags_of(r.inputs, prop) == expected, f"{r.type} {r.name}: {r.inputs.get(prop)}"
        for spec in r.inputs.get("tagSpecifications", []):
            assert spec["tags"] == expected, f"{r.name}: {spec['resourceType']} tags"
        # GCP disks created with a VM carry labels of their own.
        for disk in [
            *r.inputs.get("disks", []),
            r.inputs.get("bootDisk", {}).get("initializeParams"),
        ]:
            if disk is not None:
                assert disk.get("labels") == expected, f"{r.name}: disk labels"
    return checked


def assert_children_of(capture: Capture, component_type: str, name: str) -> Registration:
    """The component registered once with its type token; every other resource is its child
    and named after it."""
    (component,) = capture.of_type(component_type)
    assert component.name == name and not component.custom
    for r in capture.registrations:
        if r is component:
            continue
        assert r.parent == component.urn, f"{r.name} has parent {r.parent}"
        assert r.name.startswith(f"{name}-"), r.name
    return component


def values_at(inputs: Any, path: str) -> list[Any]:
    """Values at a dotted path; ``[]`` after a key walks a list."""
    current: list[Any] = [inputs]
    for part in path.split("."):
        step: list[Any] = []
        key, many = (part[:-2], True) if part.endswith("[]") else (part, False)
        for value in current:
            if isinstance(value, dict) and key in value and value[key] is not None:
                step.extend(value[key] if many else [value[key]])
        current = step
    return current


def _enum(values: Iterable[Any]) -> frozenset[str]:
    return frozenset(v.value for v in values)


AZURE_GPU_SIZES = frozenset(load_catalog().instance_types("azure"))
# Written from the API reference: the Compute SDK has no enum of disk types (only a call that
# lists a zone's, which needs the network).
GCP_DISK_TYPES = frozenset(
    {
        "pd-standard",
        "pd-balanced",
        "pd-ssd",
        "pd-extreme",
        "hyperdisk-balanced",
        "hyperdisk-extreme",
        "hyperdisk-throughput",
    }
)
GCP_ATTACHABLE = frozenset(ACCELERATOR_TYPES[gpu] for gpu in N1_GPUS)


# (resource type, input path) -> values the provider accepts.
def _api_enum(service: str, shape: str) -> frozenset[str]:
    """The values an AWS API enum takes, from botocore's model of the service."""
    values = _aws_session().get_service_model(service).shape_for(shape).enum
    assert values, f"{service} {shape} lists no values in this botocore: write them from the API"
    return frozenset(values)


def _api_documented(service: str, shape: str, member: str) -> frozenset[str]:
    """The values an AWS API member takes where botocore models it as a plain string: those its
    documentation lists (a definition list of the values, or the longest run of ``<code>``
    values joined by ``|``, commas, "and" or "or")."""
    doc = _aws_session().get_service_model(service).shape_for(shape).members[member].documentation
    # A term's remark after it ("price-capacity-optimized (recommended)") is not the value.
    values = [term.split()[0] for term in re.findall(r"<dt>([^<]+)</dt>", doc)]
    if not values:
        runs = [
            re.findall(r"<code>([^<]+)</code>", run.group(0))
            for run in re.finditer(
                r"<code>[^<]+</code>(?:\s*(?:\||,|,?\s*and|,?\s*or)\s*<code>[^<]+</code>)+", doc
            )
        ]
        values = max(runs, key=len, default=[])
    assert values, f"{service} {shape}.{member} documents no values in this botocore"
    return frozenset(v.strip() for v in values)


@cache
def _aws_session() -> botocore.session.Session:
    return botocore.session.get_session()


# The Compute SDK lists some values only in an enum's docstring, after this line.
_MORE_VALUES = re.compile(
    r"Additional supported values which may be not listed in the enum\s+directly due to "
    r"technical reasons:\s*\n((?:\s*[A-Z][A-Z0-9_]*\s*\n)+)"
)


def _proto_enum(enum: Any) -> frozenset[str]:
    """The values a Compute API enum takes, its "not set" markers aside: its members and those
    its docstring adds."""
    listed = {member.name for member in enum}
    more = _MORE_VALUES.search(enum.__doc__ or "")
    if more:
        listed |= set(more.group(1).split())
    values = frozenset(
        name
        for name in listed
        if not name.startswith("UNDEFINED_") and not name.endswith("UNSPECIFIED")
    )
    assert values, f"{enum.__qualname__} lists no values in this SDK: write them from the API"
    return values


ALLOWED: dict[tuple[str, str], frozenset[str]] = {
    # botocore models Auto Scaling's strategies and types as plain strings: the values their
    # documentation lists.
    (
        "aws:autoscaling/group:Group",
        "mixedInstancesPolicy.instancesDistribution.spotAllocationStrategy",
    ): _api_documented("autoscaling", "InstancesDistribution", "SpotAllocationStrategy"),
    (
        "aws:autoscaling/group:Group",
        "mixedInstancesPolicy.instancesDistribution.onDemandAllocationStrategy",
    ): _api_documented("autoscaling", "InstancesDistribution", "OnDemandAllocationStrategy"),
    ("aws:autoscaling/group:Group", "desiredCapacityType"): _api_documented(
        "autoscaling", "CreateAutoScalingGroupType", "DesiredCapacityType"
    ),
    ("aws:autoscaling/group:Group", "healthCheckType"): _api_documented(
        "autoscaling", "CreateAutoScalingGroupType", "HealthCheckType"
    ),
    (
        "aws:autoscaling/group:Group",
        "mixedInstancesPolicy.launchTemplate.overrides[].instanceType",
    ): _enum(aws.ec2.InstanceType),
    ("aws:ec2/placementGroup:PlacementGroup", "strategy"): _enum(aws.ec2.PlacementStrategy),
    ("aws:ec2/launchTemplate:LaunchTemplate", "instanceType"): _enum(aws.ec2.InstanceType),
    ("aws:ec2/launchTemplate:LaunchTemplate", "networkInterfaces[].interfaceType"): (
        _api_documented(
            "ec2", "LaunchTemplateInstanceNetworkInterfaceSpecificationRequest", "InterfaceType"
        )
    ),
    ("aws:ec2/launchTemplate:LaunchTemplate", "metadataOptions.httpTokens"): _api_enum(
        "ec2", "LaunchTemplateHttpTokensState"
    ),
    ("aws:ec2/launchTemplate:LaunchTemplate", "metadataOptions.httpEndpoint"): _api_enum(
        "ec2", "LaunchTemplateInstanceMetadataEndpointState"
    ),
    ("aws:ec2/launchTemplate:LaunchTemplate", "metadataOptions.instanceMetadataTags"): _api_enum(
        "ec2", "LaunchTemplateInstanceMetadataTagsState"
    ),
    ("aws:ec2/launchTemplate:LaunchTemplate", "blockDeviceMappings[].ebs.volumeType"): _api_enum(
        "ec2", "VolumeType"
    ),
    # A launch template takes fewer tag targets than the API's ResourceType lists: those its
    # documentation names.
    ("aws:ec2/launchTemplate:LaunchTemplate", "tagSpecifications[].resourceType"): (
        _api_documented("ec2", "LaunchTemplateTagSpecificationRequest", "ResourceType")
    ),
    ("aws:ec2/capacityReservation:CapacityReservation", "instanceType"): _enum(
        aws.ec2.InstanceType
    ),
    ("aws:ec2/capacityReservation:CapacityReservation", "instanceMatchCriteria"): _api_enum(
        "ec2", "InstanceMatchCriteria"
    ),
    ("aws:ec2/capacityReservation:CapacityReservation", "endDateType"): _api_enum(
        "ec2", "EndDateType"
    ),
    ("aws:ec2/capacityReservation:CapacityReservation", "instancePlatform"): _enum(
        aws.ec2.InstancePlatform
    ),
    ("aws:ec2/capacityBlockReservation:CapacityBlockReservation", "instancePlatform"): _enum(
        aws.ec2.InstancePlatform
    ),
    # Written from the API reference: botocore names the protocols in prose, beside any IANA
    # protocol number; these are the ones gpufleet writes.
    ("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "ipProtocol"): frozenset(
        {"-1", "tcp", "udp", "icmp", "icmpv6"}
    ),
    ("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule", "ipProtocol"): frozenset(
        {"-1", "tcp", "udp", "icmp", "icmpv6"}
    ),
    (
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
        "rules[].applyServerSideEncryptionByDefault.sseAlgorithm",
    ): _api_enum("s3", "ServerSideEncryption"),
    # The API's two states, and the provider's own for a bucket never versioned.
    ("aws:s3/bucketVersioning:BucketVersioning", "versioningConfiguration.status"): _api_enum(
        "s3", "BucketVersioningStatus"
    )
    | {"Disabled"},
    (
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
        "rules[].status",
    ): _api_enum("s3", "ExpirationStatus"),
    ("aws:s3/bucketOwnershipControls:BucketOwnershipControls", "rule.objectOwnership"): _api_enum(
        "s3", "ObjectOwnership"
    ),
    (
        "aws:sagemaker/trainingJob:TrainingJob",
        "algorithmSpecification.trainingInputMode",
    ): _api_enum("sagemaker", "TrainingInputMode"),
    # GCP: the Compute API's own enums (google-cloud-compute), where its SDK has them
    ("gcp:compute/instanceTemplate:InstanceTemplate", "scheduling.provisioningModel"): _proto_enum(
        compute_v1.Scheduling.ProvisioningModel
    ),
    (
        "gcp:compute/instanceTemplate:InstanceTemplate",
        "scheduling.instanceTerminationAction",
    ): _proto_enum(compute_v1.Scheduling.InstanceTerminationAction),
    ("gcp:compute/instanceTemplate:InstanceTemplate", "scheduling.onHostMaintenance"): _proto_enum(
        compute_v1.Scheduling.OnHostMaintenance
    ),
    ("gcp:compute/instanceTemplate:InstanceTemplate", "disks[].diskType"): GCP_DISK_TYPES,
    ("gcp:compute/instanceTemplate:InstanceTemplate", "guestAccelerators[].type"): GCP_ATTACHABLE,
    ("gcp:compute/instance:Instance", "scheduling.provisioningModel"): _proto_enum(
        compute_v1.Scheduling.ProvisioningModel
    ),
    ("gcp:compute/instance:Instance", "scheduling.instanceTerminationAction"): _proto_enum(
        compute_v1.Scheduling.InstanceTerminationAction
    ),
    ("gcp:compute/instance:Instance", "scheduling.onHostMaintenance"): _proto_enum(
        compute_v1.Scheduling.OnHostMaintenance
    ),
    ("gcp:compute/instance:Instance", "bootDisk.initializeParams.type"): GCP_DISK_TYPES,
    ("gcp:compute/instance:Instance", "reservationAffinity.type"): _proto_enum(
        compute_v1.ReservationAffinity.ConsumeReservationType
    ),
    (
        "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
        "distributionPolicyTargetShape",
    ): _proto_enum(compute_v1.DistributionPolicy.TargetShape),
    (
        "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
        "updatePolicy.type",
    ): _proto_enum(compute_v1.InstanceGroupManagerUpdatePolicy.Type),
    (
        "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
        "updatePolicy.minimalAction",
    ): _proto_enum(compute_v1.InstanceGroupManagerUpdatePolicy.MinimalAction),
    (
        "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
        "updatePolicy.instanceRedistributionType",
    ): _proto_enum(compute_v1.InstanceGroupManagerUpdatePolicy.InstanceRedistributionType),
    ("gcp:compute/resourcePolicy:ResourcePolicy", "groupPlacementPolicy.collocation"): (
        _proto_enum(compute_v1.ResourcePolicyGroupPlacementPolicy.Collocation)
    ),
    ("gcp:compute/reservation:Reservation", "shareSettings.shareType"): _proto_enum(
        compute_v1.ShareSettings.ShareType
    ),
    (
        "gcp:compute/reservation:Reservation",
        "specificReservation.instanceProperties.guestAccelerators[].acceleratorType",
    ): GCP_ATTACHABLE,
    ("gcp:compute/regionCommitment:RegionCommitment", "plan"): _proto_enum(
        compute_v1.Commitment.Plan
    ),
    ("gcp:compute/regionCommitment:RegionCommitment", "type"): _proto_enum(
        compute_v1.Commitment.Type
    ),
    ("gcp:compute/regionCommitment:RegionCommitment", "category"): _proto_enum(
        compute_v1.Commitment.Category
    ),
    ("gcp:compute/regionCommitment:RegionCommitment", "resources[].type"): _proto_enum(
        compute_v1.ResourceCommitment.Type
    ),
    (
        "gcp:compute/regionCommitment:RegionCommitment",
        "resources[].acceleratorType",
    ): frozenset(ACCELERATOR_TYPES.values()),
    # Azure (SDK enums)
    ("azure-native:machinelearningservices:Compute", "properties.computeType"): _enum(
        azure.machinelearningservices.ComputeType
    ),
    ("azure-native:machinelearningservices:Compute", "properties.properties.vmPriority"): _enum(
        azure.machinelearningservices.VmPriority
    ),
    ("azure-native:machinelearningservices:Compute", "properties.properties.osType"): _enum(
        azure.machinelearningservices.OsType
    ),
    (
        "azure-native:machinelearningservices:Compute",
        "properties.properties.remoteLoginPortPublicAccess",
    ): _enum(azure.machinelearningservices.RemoteLoginPortPublicAccess),
    ("azure-native:machinelearningservices:Compute", "identity.type"): _enum(
        azure.machinelearningservices.ManagedServiceIdentityType
    ),
    ("azure-native:machinelearningservices:Workspace", "identity.type"): _enum(
        azure.machinelearningservices.ManagedServiceIdentityType
    ),
    ("azure-native:machinelearningservices:Workspace", "managedNetwork.isolationMode"): _enum(
        azure.machinelearningservices.IsolationMode
    ),
    ("azure-native:storage:StorageAccount", "kind"): _enum(azure.storage.Kind),
    ("azure-native:storage:StorageAccount", "sku.name"): _enum(azure.storage.SkuName),
    ("azure-native:storage:StorageAccount", "minimumTlsVersion"): _enum(
        azure.storage.MinimumTlsVersion
    ),
    ("azure-native:storage:StorageAccount", "publicNetworkAccess"): _enum(
        azure.storage.PublicNetworkAccess
    ),
    ("azure-native:machinelearningservices:Workspace", "publicNetworkAccess"): _enum(
        azure.machinelearningservices.PublicNetworkAccessType
    ),
    ("azure-native:machinelearningservices:Workspace", "systemDatastoresAuthMode"): _enum(
        azure.machinelearningservices.SystemDatastoresAuthMode
    ),
    ("azure-native:keyvault:Vault", "properties.publicNetworkAccess"): _enum(
        azure.keyvault.PublicNetworkAccess
    ),
    ("azure-native:keyvault:Vault", "properties.networkAcls.defaultAction"): _enum(
        azure.keyvault.NetworkRuleAction
    ),
    ("azure-native:keyvault:Vault", "properties.networkAcls.bypass"): _enum(
        azure.keyvault.NetworkRuleBypassOptions
    ),
    ("azure-native:keyvault:Vault", "properties.sku.name"): _enum(azure.keyvault.SkuName),
    ("azure-native:keyvault:Vault", "properties.sku.family"): _enum(azure.keyvault.SkuFamily),
    ("azure-native:compute:VirtualMachineScaleSet", "virtualMachineProfile.priority"): _enum(
        azure.compute.VirtualMachinePriorityTypes
    ),
    ("azure-native:compute:VirtualMachineScaleSet", "virtualMachineProfile.evictionPolicy"): _enum(
        azure.compute.VirtualMachineEvictionPolicyTypes
    ),
    ("azure-native:compute:VirtualMachineScaleSet", "orchestrationMode"): _enum(
        azure.compute.OrchestrationMode
    ),
    ("azure-native:compute:VirtualMachineScaleSet", "upgradePolicy.mode"): _enum(
        azure.compute.UpgradeMode
    ),
    (
        "azure-native:compute:VirtualMachineScaleSet",
        "virtualMachineProfile.storageProfile.osDisk.createOption",
    ): _enum(azure.compute.DiskCreateOptionTypes),
    (
        "azure-native:compute:VirtualMachineScaleSet",
        "virtualMachineProfile.storageProfile.osDisk.caching",
    ): _enum(azure.compute.CachingTypes),
    (
        "azure-native:compute:VirtualMachineScaleSet",
        "virtualMachineProfile.storageProfile.osDisk.managedDisk.storageAccountType",
    ): _enum(azure.compute.StorageAccountTypes),
    ("azure-native:compute:VirtualMachineScaleSet", "sku.name"): AZURE_GPU_SIZES,
    ("azure-native:compute:CapacityReservation", "sku.name"): AZURE_GPU_SIZES,
    (
        "azure-native:machinelearningservices:Compute",
        "properties.properties.vmSize",
    ): AZURE_GPU_SIZES,
    ("azure-native:compute:ProximityPlacementGroup", "proximityPlacementGroupType"): _enum(
        azure.compute.ProximityPlacementGroupType
    ),
}


def assert_component_basics(
    cap: Capture, component_type: str, name: str, tagged: int, enums: int = 3
) -> None:
    """Children parented and named from the component, ``tagged`` taggable resources all
    tagged, at least ``enums`` inputs checked against what the provider accepts, nothing
    deprecated."""
    assert_children_of(cap, component_type, name)
    assert assert_tagged(cap) == tagged
    assert assert_provider_would_accept(cap) >= enums
    assert_nothing_deprecated(cap)


def assert_provider_would_accept(capture: Capture) -> int:
    """Every value at a known enum-like input is one the provider accepts; returns the number of
    values checked."""
    checked = 0
    for r in capture.registrations:
        for (type_, path), allowed in ALLOWED.items():
            if r.type != type_:
                continue
            for value in values_at(r.inputs, path):
                checked += 1
                assert value in allowed, f"{r.name}: {path} = {value!r} is not one of {allowed}"
    return checked

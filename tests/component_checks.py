"""Checks every component test makes on a capture: tags on every taggable child, children
parented and named from the component, and input values a provider would reject (mocks accept
anything, so the allowed values are written down here, from the SDK's enums where it has them
and from the AWS API references where it does not)."""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

import pulumi_aws as aws

from gpufleet.components.tagging import RequiredTags

from .pulumi_mocks import Capture, Registration

TAGS = RequiredTags(
    project="acme-ml",
    owner="ml-platform@acme.example",
    cost_center="cc-4200",
    environment="dev",
    workload="trainer",
    extra={"team": "research"},
)


@cache
def resource_class(type_token: str) -> type | None:
    """The SDK class for a type token such as ``aws:ec2/launchTemplate:LaunchTemplate``."""
    package, module_path, class_name = type_token.split(":")
    module = module_path.split("/")[0]
    python_package = {"aws": "pulumi_aws", "gcp": "pulumi_gcp"}.get(package)
    if python_package is None:
        return None
    name = python_package if module == "index" else f"{python_package}.{module}"
    return getattr(importlib.import_module(name), class_name)


@cache
def taggable(type_token: str) -> bool:
    """Whether the SDK's resource class for ``type_token`` takes ``tags`` (or ``labels``)."""
    cls = resource_class(type_token)
    if cls is None:
        return False
    parameters = inspect.signature(cls._internal_init).parameters
    return "tags" in parameters or "labels" in parameters


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


def tags_of(inputs: dict[str, Any]) -> dict[str, str] | None:
    """A resource's tags as a dict: most resources take a map, Auto Scaling groups a list of
    ``{key, value, propagateAtLaunch}``."""
    tags = inputs.get("tags")
    if isinstance(tags, list):
        return {t["key"]: t["value"] for t in tags}
    return tags


def assert_tagged(capture: Capture, tags: RequiredTags = TAGS) -> int:
    """Every taggable custom resource carries the required tags and the user's; returns how many
    resources were checked (so a test can tell the check was not vacuous)."""
    expected = tags.as_tags()
    checked = 0
    for r in capture.registrations:
        if not r.custom or not taggable(r.type):
            continue
        checked += 1
        assert tags_of(r.inputs) == expected, f"{r.type} {r.name}: tags {r.inputs.get('tags')}"
        for spec in r.inputs.get("tagSpecifications", []):
            assert spec["tags"] == expected, f"{r.name}: {spec['resourceType']} tags"
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


# (resource type, input path) -> values the provider accepts.
ALLOWED: dict[tuple[str, str], frozenset[str]] = {
    (
        "aws:autoscaling/group:Group",
        "mixedInstancesPolicy.instancesDistribution.spotAllocationStrategy",
    ): frozenset(
        {
            "lowest-price",
            "capacity-optimized",
            "capacity-optimized-prioritized",
            "price-capacity-optimized",
        }
    ),
    (
        "aws:autoscaling/group:Group",
        "mixedInstancesPolicy.instancesDistribution.onDemandAllocationStrategy",
    ): frozenset({"prioritized", "lowest-price"}),
    ("aws:autoscaling/group:Group", "desiredCapacityType"): frozenset(
        {"units", "vcpu", "memory-mib"}
    ),
    ("aws:autoscaling/group:Group", "healthCheckType"): frozenset(
        {"EC2", "ELB", "EBS", "VPC_LATTICE"}
    ),
    (
        "aws:autoscaling/group:Group",
        "mixedInstancesPolicy.launchTemplate.overrides[].instanceType",
    ): _enum(aws.ec2.InstanceType),
    ("aws:ec2/placementGroup:PlacementGroup", "strategy"): _enum(aws.ec2.PlacementStrategy),
    ("aws:ec2/launchTemplate:LaunchTemplate", "instanceType"): _enum(aws.ec2.InstanceType),
    ("aws:ec2/launchTemplate:LaunchTemplate", "networkInterfaces[].interfaceType"): frozenset(
        {"interface", "efa", "efa-only"}
    ),
    ("aws:ec2/launchTemplate:LaunchTemplate", "metadataOptions.httpTokens"): frozenset(
        {"optional", "required"}
    ),
    ("aws:ec2/launchTemplate:LaunchTemplate", "metadataOptions.httpEndpoint"): frozenset(
        {"enabled", "disabled"}
    ),
    ("aws:ec2/launchTemplate:LaunchTemplate", "metadataOptions.instanceMetadataTags"): frozenset(
        {"enabled", "disabled"}
    ),
    ("aws:ec2/launchTemplate:LaunchTemplate", "blockDeviceMappings[].ebs.volumeType"): frozenset(
        {"standard", "gp2", "gp3", "io1", "io2", "sc1", "st1"}
    ),
    ("aws:ec2/launchTemplate:LaunchTemplate", "tagSpecifications[].resourceType"): frozenset(
        {"instance", "volume", "network-interface", "spot-instances-request", "elastic-gpu"}
    ),
    ("aws:ec2/capacityReservation:CapacityReservation", "instanceType"): _enum(
        aws.ec2.InstanceType
    ),
    ("aws:ec2/capacityReservation:CapacityReservation", "instanceMatchCriteria"): frozenset(
        {"open", "targeted"}
    ),
    ("aws:ec2/capacityReservation:CapacityReservation", "endDateType"): frozenset(
        {"unlimited", "limited"}
    ),
    ("aws:ec2/capacityReservation:CapacityReservation", "instancePlatform"): _enum(
        aws.ec2.InstancePlatform
    ),
    ("aws:ec2/capacityBlockReservation:CapacityBlockReservation", "instancePlatform"): _enum(
        aws.ec2.InstancePlatform
    ),
    ("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "ipProtocol"): frozenset(
        {"-1", "tcp", "udp", "icmp", "icmpv6"}
    ),
    ("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule", "ipProtocol"): frozenset(
        {"-1", "tcp", "udp", "icmp", "icmpv6"}
    ),
    (
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
        "rules[].applyServerSideEncryptionByDefault.sseAlgorithm",
    ): frozenset({"AES256", "aws:kms", "aws:kms:dsse"}),
    ("aws:s3/bucketVersioning:BucketVersioning", "versioningConfiguration.status"): frozenset(
        {"Enabled", "Suspended", "Disabled"}
    ),
    (
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
        "rules[].status",
    ): frozenset({"Enabled", "Disabled"}),
    ("aws:s3/bucketOwnershipControls:BucketOwnershipControls", "rule.objectOwnership"): frozenset(
        {"BucketOwnerPreferred", "ObjectWriter", "BucketOwnerEnforced"}
    ),
    (
        "aws:sagemaker/trainingJob:TrainingJob",
        "algorithmSpecification.trainingInputMode",
    ): frozenset({"File", "Pipe", "FastFile"}),
}


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

"""Realistic computed outputs for resources and invokes under Pulumi's mock runtime.

A real provider answers a create with an id and computed properties (ARNs, self links, names,
``latestVersion``); Pulumi's mocks answer with whatever ``new_resource`` returns, and anything
missing resolves to None. These functions return what the provider would, shaped like the real
APIs (deterministic: derived from the resource name), so outputs a program derives from its
resources look real in a capture. Unknown resource types echo their inputs with an id; other
invokes answer what no provider told us as not known (``invoke_fields``), so nothing a program
reads from one passes for a real value.
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

from gpufleet import resource_types as types
from gpufleet.clouds import cloud_of_type
from gpufleet.engine.invoke_fields import placeholder_result

ACCOUNT = "123456789012"
REGION = "us-east-1"
GCP_PROJECT = "acme-ml-prod"
AZURE_SUBSCRIPTION = "00000000-0000-0000-0000-000000000000"
AZURE_TENANT = "11111111-1111-1111-1111-111111111111"
AWS_PUBLIC_PARAMETERS = "/aws/service/"


def _hex(name: str, length: int = 17) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:length]


def realistic_outputs(
    type_: str, name: str, inputs: dict[str, Any], provider: dict[str, Any] | None = None
) -> tuple[str, dict[str, Any]]:
    """An id and the computed outputs the provider would return for a new resource.

    ``provider`` is the inputs of the resource's explicit provider, if any: its AWS region and
    GCP project show in ARNs, URLs and self links.
    """
    provider = provider or {}
    aws_region = str(provider.get("region") or REGION)
    if type_.startswith("pulumi:providers:"):
        # The engine gives provider instances a UUID id; references are "urn::id".
        rid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"gpufleet/{type_}/{name}"))
        return rid, {**inputs}
    cloud = cloud_of_type(type_)
    if cloud == "gcp":
        return _gcp_outputs(type_, name, inputs, str(provider.get("project") or GCP_PROJECT))
    if cloud == "azure":
        return _azure_outputs(type_, name, inputs)
    service = type_.split(":")[1].split("/")[0]
    arn = f"arn:aws:{service}:{aws_region}:{ACCOUNT}:{name}"
    out: dict[str, Any] = {"arn": arn}
    # The name the resource has in the cloud: the one given, as the provider keeps it.
    given = inputs.get("name")
    cloud_name = given if isinstance(given, str) and given else name
    if type_ == types.AWS_SECURITY_GROUP:
        rid = f"sg-{_hex(name)}"
        out["arn"] = f"arn:aws:ec2:{aws_region}:{ACCOUNT}:security-group/{rid}"
    elif type_ == types.AWS_LAUNCH_TEMPLATE:
        rid = f"lt-{_hex(name)}"
        out |= {"latestVersion": 1, "defaultVersion": 1, "name": cloud_name}
    elif type_ == types.AWS_IAM_ROLE:
        rid = cloud_name
        out |= {
            "name": cloud_name,
            "arn": f"arn:aws:iam::{ACCOUNT}:role/{cloud_name}",
            "uniqueId": _hex(cloud_name),
        }
    elif type_ == types.AWS_INSTANCE_PROFILE:
        rid = cloud_name
        out |= {"name": cloud_name, "arn": f"arn:aws:iam::{ACCOUNT}:instance-profile/{cloud_name}"}
    elif type_ == types.AWS_SQS_QUEUE:
        url = f"https://sqs.{aws_region}.amazonaws.com/{ACCOUNT}/{cloud_name}"
        rid = url
        out |= {
            "url": url,
            "name": cloud_name,
            "arn": f"arn:aws:sqs:{aws_region}:{ACCOUNT}:{cloud_name}",
        }
    elif type_ == types.AWS_EVENT_RULE:
        rid = cloud_name
        out |= {
            "name": cloud_name,
            "arn": f"arn:aws:events:{aws_region}:{ACCOUNT}:rule/{cloud_name}",
        }
    elif type_ == types.AWS_AUTOSCALING_GROUP:
        rid = cloud_name
        out |= {"name": cloud_name}
    elif type_ == types.AWS_PLACEMENT_GROUP:
        rid = cloud_name
        out |= {"name": cloud_name, "placementGroupId": f"pg-{_hex(cloud_name)}"}
    elif type_ in (types.AWS_CAPACITY_RESERVATION, types.AWS_CAPACITY_BLOCK):
        rid = f"cr-{_hex(name)}"
        out["arn"] = f"arn:aws:ec2:{aws_region}:{ACCOUNT}:capacity-reservation/{rid}"
    elif type_ == types.AWS_S3_BUCKET:
        rid = inputs.get("bucket") or f"{inputs.get('bucketPrefix', name)}{_hex(name, 12)}"
        out |= {"bucket": rid, "arn": f"arn:aws:s3:::{rid}"}
    elif type_ == types.AWS_TRAINING_JOB:
        rid = inputs.get("trainingJobName", name)
        out["arn"] = f"arn:aws:sagemaker:{aws_region}:{ACCOUNT}:training-job/{rid}"
    elif type_ == types.AWS_EMR_CLUSTER:
        # Programs build Application Auto Scaling resource ids from the cluster's id and its
        # core group's (instancegroup/j-.../ig-...).
        rid = f"j-{_hex(name, 13).upper()}"
        out |= {
            "name": cloud_name,
            "arn": f"arn:aws:elasticmapreduce:{aws_region}:{ACCOUNT}:cluster/{rid}",
        }
        for role, prefix in (
            ("masterInstanceGroup", "ig"),
            ("coreInstanceGroup", "ig"),
            ("masterInstanceFleet", "if"),
            ("coreInstanceFleet", "if"),
        ):
            part = inputs.get(role)
            if isinstance(part, dict):
                out[role] = {**part, "id": f"{prefix}-{_hex(name + role, 13).upper()}"}
    elif type_ in (types.AWS_EMR_INSTANCE_GROUP, types.AWS_EMR_INSTANCE_FLEET):
        prefix = "ig" if type_ == types.AWS_EMR_INSTANCE_GROUP else "if"
        rid = f"{prefix}-{_hex(name, 13).upper()}"
    else:
        rid = f"{name}-id"
        # Pulumi auto-names a resource that names itself (a launch configuration's name,
        # referenced by its group) with a random suffix; the rest ignore an extra output.
        out["name"] = inputs.get("name") or f"{inputs.get('namePrefix', name + '-')}{_hex(name, 7)}"
    return rid, {**inputs, **out, "id": rid}


def _gcp_outputs(
    type_: str, name: str, inputs: dict[str, Any], project: str
) -> tuple[str, dict[str, Any]]:
    kind = type_.rsplit(":", 1)[1]
    resource_name = inputs.get("name") or f"{inputs.get('namePrefix', name + '-')}{_hex(name, 7)}"
    scope = (
        f"zones/{inputs['zone']}"
        if "zone" in inputs
        else f"regions/{inputs['region']}"
        if "region" in inputs and kind != "InstanceTemplate"
        else "global"
    )
    singular = kind[0].lower() + kind[1:]
    collection = singular[:-1] + "ies" if singular.endswith("y") else singular + "s"
    self_link = (
        f"https://www.googleapis.com/compute/v1/projects/{project}/{scope}/"
        f"{collection}/{resource_name}"
    )
    out: dict[str, Any] = {"name": resource_name, "selfLink": self_link}
    rid = f"projects/{project}/{scope}/{collection}/{resource_name}"
    if type_ == types.GCP_SERVICE_ACCOUNT:
        email = f"{inputs['accountId']}@{project}.iam.gserviceaccount.com"
        rid = f"projects/{project}/serviceAccounts/{email}"
        out = {
            "email": email,
            "name": rid,
            "member": f"serviceAccount:{email}",
            "uniqueId": str(int(_hex(name, 12), 16)),
        }
    elif kind == "InstanceTemplate":
        out["selfLinkUnique"] = f"{self_link}?uniqueId={int(_hex(name, 12), 16)}"
    elif kind == "RegionInstanceGroupManager":
        out["instanceGroup"] = self_link.replace(
            "/regionInstanceGroupManagers/", "/instanceGroups/"
        )
    elif kind == "Instance":
        out["instanceId"] = str(int(_hex(name, 12), 16))
    return rid, {**inputs, **out, "id": rid}


_AZURE_NAME_INPUTS = (
    "accountName",
    "vaultName",
    "computeName",
    "workspaceName",
    "vmScaleSetName",
    "capacityReservationGroupName",
    "capacityReservationName",
    "proximityPlacementGroupName",
    "resourceName",
)


def _azure_outputs(type_: str, name: str, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    _, module, kind = type_.split(":")
    explicit = [inputs[k] for k in _AZURE_NAME_INPUTS if k in inputs and k != "workspaceName"]
    if kind == "Workspace" and "workspaceName" in inputs:
        explicit = [inputs["workspaceName"]]
    resource_name = explicit[0] if explicit else f"{name}{_hex(name, 8)}"
    group = inputs.get("resourceGroupName", "rg")
    rid = (
        f"/subscriptions/{AZURE_SUBSCRIPTION}/resourceGroups/{group}/providers/"
        f"Microsoft.{module}/{kind[0].lower() + kind[1:]}s/{resource_name}"
    )
    out: dict[str, Any] = {"name": resource_name, "type": f"Microsoft.{module}/{kind}"}
    if isinstance(inputs.get("identity"), dict):
        out["identity"] = {
            **inputs["identity"],
            "principalId": f"{_hex(name, 8)}-0000-0000-0000-000000000000",
            "tenantId": AZURE_TENANT,
        }
    return rid, {**inputs, **out, "id": rid}


def invoke_result(token: str, args: dict[str, Any]) -> dict[str, Any]:
    name = args.get("name")
    if token == "aws:ssm/getParameter:getParameter" and str(name).startswith(AWS_PUBLIC_PARAMETERS):
        # AWS's public parameters (the AMIs gpufleet's components look up) name images.
        return {"name": name, "value": f"ami-{_hex(str(name))}", "type": "String"}
    if token == "aws:ec2/getCapacityBlockOffering:getCapacityBlockOffering":
        return {
            **args,
            "availabilityZone": f"{REGION}a",
            "capacityBlockOfferingId": f"cb-{_hex(str(sorted(args.items())))}",
            "currencyCode": "USD",
            "upfrontFee": "18437.76",
            "tenancy": "default",
        }
    if token == "aws:index/getCallerIdentity:getCallerIdentity":
        return {"accountId": ACCOUNT, "arn": f"arn:aws:iam::{ACCOUNT}:user/test", "userId": "X"}
    if token == "aws:index/getRegion:getRegion":
        return {"name": REGION, "region": REGION, "id": REGION}
    if token == "azure-native:authorization:getClientConfig":
        return {
            "clientId": "22222222-2222-2222-2222-222222222222",
            "objectId": "33333333-3333-3333-3333-333333333333",
            "subscriptionId": AZURE_SUBSCRIPTION,
            "tenantId": AZURE_TENANT,
        }
    if token == "aws:index/getPartition:getPartition":
        return {"partition": "aws", "dnsSuffix": "amazonaws.com", "id": "aws"}
    if token == "aws:index/getAvailabilityZones:getAvailabilityZones":
        names = [f"{REGION}{suffix}" for suffix in "abc"]
        return {"names": names, "zoneIds": [f"use1-az{i}" for i in (1, 2, 4)], "id": REGION}
    if token == "gcp:organizations/getClientConfig:getClientConfig":
        return {"project": GCP_PROJECT, "region": "us-central1", "zone": "us-central1-a"}
    return placeholder_result(token, args)

"""Run Pulumi code under the SDK's mock runtime and capture every resource registration whole.

``capture(program)`` runs ``program`` (any function that creates resources) with a
``MockMonitor`` subclass that records each ``RegisterResource`` request — type, name, parent,
provider, dependencies, protect / retainOnDelete / ignoreChanges, and the decoded inputs under
their engine (camelCase) names — and answers with realistic outputs (ids, ARNs, names, URLs,
``latestVersion``), so outputs a component derives from its children resolve to real-looking
values instead of None. Invokes (SSM parameters, capacity block offerings, caller identity)
answer like the real API.

The offline engine of issue 5 grows out of this; until then it is a test helper.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pulumi
from pulumi.runtime import mocks, rpc
from pulumi.runtime.settings import SETTINGS
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

ACCOUNT = "123456789012"
REGION = "us-east-1"
GCP_PROJECT = "acme-ml-prod"
AZURE_SUBSCRIPTION = "00000000-0000-0000-0000-000000000000"
AZURE_TENANT = "11111111-1111-1111-1111-111111111111"


@dataclass
class Registration:
    type: str
    name: str
    urn: str
    parent: str
    custom: bool
    provider: str
    dependencies: list[str]
    protect: bool
    retain_on_delete: bool
    ignore_changes: list[str]
    inputs: dict[str, Any]
    outputs: dict[str, Any] = field(default_factory=dict)


@dataclass
class Capture:
    registrations: list[Registration]
    invokes: list[tuple[str, dict[str, Any]]]

    def of_type(self, type_: str) -> list[Registration]:
        # Sorted by name: registrations resolve their inputs concurrently, so arrival order
        # varies from run to run.
        return sorted((r for r in self.registrations if r.type == type_), key=lambda r: r.name)

    def one(self, type_: str) -> Registration:
        found = self.of_type(type_)
        assert len(found) == 1, f"{len(found)} resources of type {type_}"
        return found[0]

    def named(self, name: str) -> Registration:
        (found,) = [r for r in self.registrations if r.name == name]
        return found

    @property
    def types(self) -> list[str]:
        return sorted(r.type for r in self.registrations)


def _hex(name: str, length: int = 17) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:length]


def realistic_outputs(type_: str, name: str, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """An id and the computed outputs the provider would return for a new resource."""
    if type_.startswith("gcp:"):
        return _gcp_outputs(type_, name, inputs)
    if type_.startswith("azure-native:"):
        return _azure_outputs(type_, name, inputs)
    service = type_.split(":")[1].split("/")[0]
    arn = f"arn:aws:{service}:{REGION}:{ACCOUNT}:{name}"
    out: dict[str, Any] = {"arn": arn}
    if type_ == "aws:ec2/securityGroup:SecurityGroup":
        rid = f"sg-{_hex(name)}"
        out["arn"] = f"arn:aws:ec2:{REGION}:{ACCOUNT}:security-group/{rid}"
    elif type_ == "aws:ec2/launchTemplate:LaunchTemplate":
        rid = f"lt-{_hex(name)}"
        out |= {"latestVersion": 1, "defaultVersion": 1, "name": inputs.get("name", name)}
    elif type_ == "aws:iam/role:Role":
        rid = name
        out |= {"name": name, "arn": f"arn:aws:iam::{ACCOUNT}:role/{name}", "uniqueId": _hex(name)}
    elif type_ == "aws:iam/instanceProfile:InstanceProfile":
        rid = name
        out |= {"name": name, "arn": f"arn:aws:iam::{ACCOUNT}:instance-profile/{name}"}
    elif type_ == "aws:sqs/queue:Queue":
        url = f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/{name}"
        rid = url
        out |= {"url": url, "name": name, "arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:{name}"}
    elif type_ == "aws:cloudwatch/eventRule:EventRule":
        rid = name
        out |= {"name": name, "arn": f"arn:aws:events:{REGION}:{ACCOUNT}:rule/{name}"}
    elif type_ == "aws:autoscaling/group:Group":
        rid = name
        out |= {"name": name}
    elif type_ == "aws:ec2/placementGroup:PlacementGroup":
        rid = name
        out |= {"name": name, "placementGroupId": f"pg-{_hex(name)}"}
    elif type_ in (
        "aws:ec2/capacityReservation:CapacityReservation",
        "aws:ec2/capacityBlockReservation:CapacityBlockReservation",
    ):
        rid = f"cr-{_hex(name)}"
        out["arn"] = f"arn:aws:ec2:{REGION}:{ACCOUNT}:capacity-reservation/{rid}"
    elif type_ == "aws:s3/bucket:Bucket":
        rid = inputs.get("bucket") or f"{inputs.get('bucketPrefix', name)}{_hex(name, 12)}"
        out |= {"bucket": rid, "arn": f"arn:aws:s3:::{rid}"}
    elif type_ == "aws:sagemaker/trainingJob:TrainingJob":
        rid = inputs.get("trainingJobName", name)
        out["arn"] = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:training-job/{rid}"
    else:
        rid = f"{name}-id"
    return rid, {**inputs, **out, "id": rid}


def _gcp_outputs(type_: str, name: str, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    kind = type_.rsplit(":", 1)[1]
    resource_name = inputs.get("name") or f"{inputs.get('namePrefix', name + '-')}{_hex(name, 7)}"
    scope = (
        f"zones/{inputs['zone']}"
        if "zone" in inputs
        else f"regions/{inputs['region']}"
        if "region" in inputs and kind != "InstanceTemplate"
        else "global"
    )
    collection = kind[0].lower() + kind[1:] + "s"
    self_link = (
        f"https://www.googleapis.com/compute/v1/projects/{GCP_PROJECT}/{scope}/"
        f"{collection}/{resource_name}"
    )
    out: dict[str, Any] = {"name": resource_name, "selfLink": self_link}
    rid = f"projects/{GCP_PROJECT}/{scope}/{collection}/{resource_name}"
    if type_ == "gcp:serviceaccount/account:Account":
        email = f"{inputs['accountId']}@{GCP_PROJECT}.iam.gserviceaccount.com"
        rid = f"projects/{GCP_PROJECT}/serviceAccounts/{email}"
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
    if token == "aws:ssm/getParameter:getParameter":
        return {"name": args["name"], "value": f"ami-{_hex(args['name'])}", "type": "String"}
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
    raise AssertionError(f"unexpected invoke {token}")


class RealisticMocks(pulumi.runtime.Mocks):
    def __init__(self) -> None:
        self.invokes: list[tuple[str, dict[str, Any]]] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        return realistic_outputs(args.typ, args.name, dict(args.inputs))

    def call(self, args: pulumi.runtime.MockCallArgs) -> dict[str, Any]:
        self.invokes.append((args.token, dict(args.args)))
        return invoke_result(args.token, dict(args.args))


class CaptureMonitor(mocks.MockMonitor):
    def __init__(self, the_mocks: RealisticMocks) -> None:
        super().__init__(the_mocks)
        self.registrations: list[Registration] = []

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802 - gRPC method name
        response = super().RegisterResource(request)
        if request.type != "pulumi:pulumi:Stack":
            registered = self.resources.get(response.urn)
            self.registrations.append(
                Registration(
                    type=request.type,
                    name=request.name,
                    urn=response.urn,
                    parent=request.parent,
                    custom=request.custom,
                    provider=request.provider,
                    dependencies=list(request.dependencies),
                    protect=request.protect,
                    retain_on_delete=request.retainOnDelete,
                    ignore_changes=list(request.ignoreChanges),
                    inputs=rpc.deserialize_properties(request.object),
                    outputs=registered.state if registered else {},
                )
            )
        return response


def capture(
    program: Callable[[], Any], *, preview: bool = False, stack: str = "dev"
) -> tuple[Capture, Any]:
    """Run ``program`` under mocks; return what it registered and what it returned, with every
    output it returned resolved."""
    the_mocks = RealisticMocks()
    monitor = CaptureMonitor(the_mocks)
    pulumi.runtime.set_mocks(
        the_mocks, project="gpufleet", stack=stack, preview=preview, monitor=monitor
    )
    SETTINGS.rpc_manager.clear()
    SETTINGS.outputs.clear()
    result: dict[str, Any] = {}

    def run() -> None:
        result["value"] = program()

    _sync_await(run_pulumi_func(run))
    return Capture(monitor.registrations, the_mocks.invokes), result.get("value")


def resolve(value: Any) -> Any:
    """The plain value of an Output (or nested structure) created during ``capture``."""
    return _sync_await(pulumi.Output.from_input(value).future())

"""Whole-process wall time and peak memory of ``gpufleet plan`` and ``gpufleet check`` at scale.

Goals (on a 2-core machine): every case median < 30 s and peak RSS < 1 GB.

1. ``gpufleet plan SPEC`` (table and ``--format json``) of a generated 2,000-workload spec
   (``plan_bench.generate_spec``) with 40 environments: (a) all with identical (empty) limits,
   (b) each with limits of its own (``max_gpus_per_workload``, ``replica_scale``,
   ``allow_on_demand``). Exit 1 (a workload not placed) is expected; 2 is a failure.
2. ``gpufleet check --from-export EXPORT --env prod --format json`` of a generated stack export
   as ``pulumi stack export`` writes it (4-space indent; the stack, its providers, then each
   component before its children, every resource after its dependencies): GPU capacity
   gpufleet sizes (EC2 instances, Auto Scaling groups on launch templates, GCP instances with
   and without attached accelerators, Azure VMs) among many ordinary resources (buckets and
   their settings, security groups, IAM roles, service accounts, firewalls, storage accounts)
   with realistic properties, tags (a few missing one), parents, providers and dependencies.
   60,000 such resources do not fit the documented input limits of a stack export (64 MiB,
   1,000,000 JSON values counted as ``json_input.parse_json`` counts them): the export is cut
   at the last whole component that fits, and its resource count, bytes and values printed.

Peak memory is the command's ``ru_maxrss`` as GNU time (``/usr/bin/time -f %M``) reports it:
the largest of its process and those it waited for (``check``'s policy pack process), not
their sum; ``tree`` is the sum over the process tree, sampled every 50 ms, and ``cpu`` the
median CPU time (user + system) of the command and the processes it waited for: both for
information, no goal (on a shared machine CPU time moves less with the load than wall time).
A run still going after ``--timeout`` seconds (a hang) is killed with every process it started
and the case counts as missed.

Usage: .venv/bin/python benchmarks/scale_bench.py [--runs 3] [--resources 60000]
       [--only plan|check] [--keep DIR] [--timeout 300] [--json]
Exits 1 if a goal is missed; it is not part of ``make test``.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from plan_bench import generate_spec

from gpufleet.json_input import MAX_JSON_BYTES, MAX_JSON_VALUES

ROOT = Path(__file__).resolve().parent.parent
GPUFLEET = str(Path(sys.executable).with_name("gpufleet"))
TIME = "/usr/bin/time" if Path("/usr/bin/time").is_file() else None  # GNU time: -f, -o
GOAL_SECONDS = 30.0
GOAL_MB = 1000.0
WORKLOADS = 2000
JSON = ("--format", "json")
ENVIRONMENTS = 40

# --- plan: 2,000 workloads x 40 environments -------------------------------------------------


def spec_with_environments(distinct: bool) -> str:
    """``plan_bench.generate_spec(2000)`` with its one ``prod: {}`` environment replaced by 40."""
    spec = generate_spec(WORKLOADS)
    if distinct:
        envs = [
            f"  e{i}: {{max_gpus_per_workload: {8 + i}, replica_scale: {1 - i / 100:g}, "
            f"allow_on_demand: {str(i % 2 == 0).lower()}}}"
            for i in range(ENVIRONMENTS)
        ]
    else:
        envs = [f"  e{i}: {{}}" for i in range(ENVIRONMENTS)]
    old = "environments:\n  prod: {}\n"
    if old not in spec:
        raise SystemExit("plan_bench.generate_spec no longer writes 'prod: {}' as its environment")
    return spec.replace(old, "environments:\n" + "\n".join(envs) + "\n")


# --- check: a large realistic stack export ----------------------------------------------------

STACK, PROJECT = "prod", "gpufleet"  # the repository's project: stacks/Pulumi.prod.yaml applies
PREFIX = f"urn:pulumi:{STACK}::{PROJECT}::"
STACK_URN = f"{PREFIX}pulumi:pulumi:Stack::{PROJECT}-{STACK}"
WHEN = "2026-11-20T09:14:27.118264Z"
ACCOUNT = "123456789012"
GCP_PROJECT = "acme-ml-prod"
AZ_SUB = "6f1c2a9e-3b7d-4e55-9a0c-2d8e51f4b7a3"
TEAMS = ["search", "ads", "recsys", "foundation-models", "vision", "speech", "platform", "data"]
AWS_REGIONS = ["us-east-1", "us-west-2", "eu-west-1"]
GCP_REGIONS = {
    "us-central1": "us-central1-a",
    "us-east4": "us-east4-c",
    "europe-west4": "europe-west4-a",
}
AZ_LOCATIONS = ["eastus2", "westus3"]
AWS_GPU_TYPES = [
    "g5.xlarge",
    "g5.12xlarge",
    "g6.2xlarge",
    "g4dn.xlarge",
    "p4d.24xlarge",
    "p5.48xlarge",
]
GCP_GPU = [  # (machine type, attached accelerator or None)
    ("g2-standard-8", None),
    ("a2-highgpu-1g", None),
    ("a3-highgpu-8g", None),
    ("n1-standard-8", ("nvidia-tesla-t4", 1)),
    ("n1-standard-16", ("nvidia-tesla-v100", 2)),
]
AZ_GPU = ["Standard_NC4as_T4_v3", "Standard_NC24ads_A100_v4", "Standard_NV36ads_A10_v5"]
PROVIDER_VERSIONS = {"aws": "6.66.2", "gcp": "8.14.0", "azure-native": "2.80.0"}
ASSUME_EC2 = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": "ec2.amazonaws.com"},
                "Action": "sts:AssumeRole",
            }
        ],
    },
    separators=(",", ":"),
)


def _hex(*parts: object, n: int = 8) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:n]


class _Stack:
    """Builds resources in the order the engine registers (and the CLI exports) them."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.providers: dict[tuple[str, str], str] = {}  # (package, region) -> reference

    def resource(
        self,
        type_: str,
        name: str,
        *,
        parent: str,
        inputs: dict[str, Any] | None = None,
        outputs: dict[str, Any] | None = None,
        id_: str | None = None,
        provider: str | None = None,
        deps: dict[str, list[str]] | None = None,
        parent_type: str | None = None,
    ) -> dict[str, Any]:
        qualified = f"{parent_type}${type_}" if parent_type else type_
        r: dict[str, Any] = {"urn": f"{PREFIX}{qualified}::{name}", "custom": provider is not None}
        if provider is not None:
            r["id"] = id_ or name
        r["type"] = type_
        if inputs is not None:
            r["inputs"] = inputs
            r["outputs"] = {**inputs, **(outputs or {}), "id": r.get("id", name)}
        r["parent"] = parent
        deps = deps or {}
        flat = sorted({u for urns in deps.values() for u in urns})
        if flat:
            r["dependencies"] = flat
        if provider is not None:
            r["provider"] = provider
        if inputs is not None:
            # The SDK records every input's dependencies, most of them none.
            r["propertyDependencies"] = {k: deps.get(k, []) for k in inputs}
        r["created"] = r["modified"] = WHEN
        return r

    def provider_resources(self) -> Iterator[dict[str, Any]]:
        def make(package: str, name: str, settings: dict[str, Any]) -> dict[str, Any]:
            version = PROVIDER_VERSIONS[package]
            urn = f"{PREFIX}pulumi:providers:{package}::{name}"
            pid = str(uuid.uuid5(uuid.NAMESPACE_URL, urn))
            return {
                "urn": urn,
                "custom": True,
                "id": pid,
                "type": f"pulumi:providers:{package}",
                "inputs": {**settings, "version": version},
                "outputs": {**settings, "version": version},
                "parent": STACK_URN,
                "created": WHEN,
                "modified": WHEN,
            }

        for region in AWS_REGIONS:
            p = make(
                "aws", f"aws-{region}", {"region": region, "skipCredentialsValidation": "false"}
            )
            self.providers[("aws", region)] = f"{p['urn']}::{p['id']}"
            yield p
        for region in GCP_REGIONS:
            p = make("gcp", f"gcp-{region}", {"project": GCP_PROJECT, "region": region})
            self.providers[("gcp", region)] = f"{p['urn']}::{p['id']}"
            yield p
        for location in AZ_LOCATIONS:
            p = make("azure-native", f"azure-{location}", {"location": location})
            self.providers[("azure-native", location)] = f"{p['urn']}::{p['id']}"
            yield p

    def tags(self, team: str, service: str, gcp: bool = False) -> dict[str, str]:
        tags = {
            "project": "acme-ml",
            "owner": f"{team}@acme.example" if not gcp else f"{team}_acme_example",
            "cost-center": f"cc-{4200 + TEAMS.index(team)}",
            "environment": "prod",
            "team": team,
            "service": service,
        }
        if self.rng.random() < 0.03:  # a hand-made resource missing one of the required tags
            del tags[self.rng.choice(["owner", "cost-center"])]
        return tags

    # Units: a component and its children, in registration order.

    def aws_service(self, i: int) -> list[dict[str, Any]]:
        team = self.rng.choice(TEAMS)
        svc = f"svc{i}"
        region = self.rng.choice(AWS_REGIONS)
        prov = self.providers[("aws", region)]
        ctype = "acme:platform:AwsService"
        comp = self.resource(ctype, svc, parent=STACK_URN)
        tags = self.tags(team, svc)
        bucket_name = f"acme-{svc}-{_hex(svc)}"
        bucket = self.resource(
            "aws:s3/bucketV2:BucketV2",
            f"{svc}-artifacts",
            parent=comp["urn"],
            parent_type=ctype,
            provider=prov,
            id_=bucket_name,
            inputs={"bucket": bucket_name, "forceDestroy": False, "tags": tags},
            outputs={
                "arn": f"arn:aws:s3:::{bucket_name}",
                "bucketDomainName": f"{bucket_name}.s3.amazonaws.com",
                "bucketRegionalDomainName": f"{bucket_name}.s3.{region}.amazonaws.com",
                "hostedZoneId": "Z3AQBSTGFYJSTF",
                "objectLockEnabled": False,
                "region": region,
                "requestPayer": "BucketOwner",
                "tagsAll": tags,
            },
        )
        on_bucket = {"bucket": [bucket["urn"]]}
        block = self.resource(
            "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
            f"{svc}-artifacts-private",
            parent=comp["urn"],
            parent_type=ctype,
            provider=prov,
            id_=bucket_name,
            inputs={
                "bucket": bucket_name,
                "blockPublicAcls": True,
                "blockPublicPolicy": True,
                "ignorePublicAcls": True,
                "restrictPublicBuckets": True,
            },
            deps=on_bucket,
        )
        sse = self.resource(
            "aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2",
            f"{svc}-artifacts-sse",
            parent=comp["urn"],
            parent_type=ctype,
            provider=prov,
            id_=bucket_name,
            inputs={
                "bucket": bucket_name,
                "rules": [
                    {
                        "applyServerSideEncryptionByDefault": {"sseAlgorithm": "aws:kms"},
                        "bucketKeyEnabled": True,
                    }
                ],
            },
            deps=on_bucket,
        )
        sg_id = f"sg-0{_hex(svc, 'sg', n=16)}"
        sg = self.resource(
            "aws:ec2/securityGroup:SecurityGroup",
            f"{svc}-sg",
            parent=comp["urn"],
            parent_type=ctype,
            provider=prov,
            id_=sg_id,
            inputs={
                "description": f"{svc} service",
                "vpcId": f"vpc-0{_hex(region, n=16)}",
                "ingress": [
                    {
                        "protocol": "tcp",
                        "fromPort": 443,
                        "toPort": 443,
                        "cidrBlocks": ["10.0.0.0/8"],
                        "description": "HTTPS from the VPC",
                    }
                ],
                "egress": [
                    {"protocol": "-1", "fromPort": 0, "toPort": 0, "cidrBlocks": ["0.0.0.0/0"]}
                ],
                "revokeRulesOnDelete": False,
                "tags": tags,
            },
            outputs={
                "arn": f"arn:aws:ec2:{region}:{ACCOUNT}:security-group/{sg_id}",
                "name": f"{svc}-sg-{_hex(svc, 'sgn', n=7)}",
                "ownerId": ACCOUNT,
                "tagsAll": tags,
            },
        )
        role_name = f"{svc}-role-{_hex(svc, 'role', n=7)}"
        role = self.resource(
            "aws:iam/role:Role",
            f"{svc}-role",
            parent=comp["urn"],
            parent_type=ctype,
            provider=prov,
            id_=role_name,
            inputs={
                "assumeRolePolicy": ASSUME_EC2,
                "description": f"{svc} service role",
                "maxSessionDuration": 3600,
                "tags": tags,
            },
            outputs={
                "arn": f"arn:aws:iam::{ACCOUNT}:role/{role_name}",
                "createDate": "2026-11-20T09:14:31Z",
                "name": role_name,
                "path": "/",
                "uniqueId": f"AROA{_hex(svc, 'uid', n=17).upper()}",
                "tagsAll": tags,
            },
        )
        attach = self.resource(
            "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
            f"{svc}-role-ssm",
            parent=comp["urn"],
            parent_type=ctype,
            provider=prov,
            id_=f"{role_name}-{_hex(svc, 'att', n=20)}",
            inputs={
                "role": role_name,
                "policyArn": "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
            },
            deps={"role": [role["urn"]]},
        )
        return [comp, bucket, block, sse, sg, role, attach]

    def gcp_service(self, i: int) -> list[dict[str, Any]]:
        team = self.rng.choice(TEAMS)
        svc = f"gsvc{i}"
        region = self.rng.choice(list(GCP_REGIONS))
        prov = self.providers[("gcp", region)]
        ctype = "acme:platform:GcpService"
        comp = self.resource(ctype, svc, parent=STACK_URN)
        labels = self.tags(team, svc, gcp=True)
        name = f"acme-{svc}-{_hex(svc)}"
        bucket = self.resource(
            "gcp:storage/bucket:Bucket",
            f"{svc}-data",
            parent=comp["urn"],
            parent_type=ctype,
            provider=prov,
            id_=name,
            inputs={
                "name": name,
                "location": region.upper(),
                "uniformBucketLevelAccess": True,
                "publicAccessPrevention": "enforced",
                "versioning": {"enabled": True},
                "forceDestroy": False,
                "labels": labels,
            },
            outputs={
                "project": GCP_PROJECT,
                "selfLink": f"https://www.googleapis.com/storage/v1/b/{name}",
                "url": f"gs://{name}",
                "storageClass": "STANDARD",
                "effectiveLabels": labels,
            },
        )
        email = f"{svc}-sa@{GCP_PROJECT}.iam.gserviceaccount.com"
        account = self.resource(
            "gcp:serviceaccount/account:Account",
            f"{svc}-sa",
            parent=comp["urn"],
            parent_type=ctype,
            provider=prov,
            id_=f"projects/{GCP_PROJECT}/serviceAccounts/{email}",
            inputs={"accountId": f"{svc}-sa", "displayName": f"{svc} workload identity"},
            outputs={
                "email": email,
                "member": f"serviceAccount:{email}",
                "name": f"projects/{GCP_PROJECT}/serviceAccounts/{email}",
                "project": GCP_PROJECT,
                "uniqueId": str(100000000000000000000 + i),
            },
        )
        member = self.resource(
            "gcp:projects/iAMMember:IAMMember",
            f"{svc}-sa-logging",
            parent=comp["urn"],
            parent_type=ctype,
            provider=prov,
            id_=f"{GCP_PROJECT}/roles/logging.logWriter/serviceAccount:{email}",
            inputs={
                "project": GCP_PROJECT,
                "role": "roles/logging.logWriter",
                "member": f"serviceAccount:{email}",
            },
            outputs={"etag": f"BwY{_hex(svc, 'etag', n=9)}="},
            deps={"member": [account["urn"]]},
        )
        firewall = self.resource(
            "gcp:compute/firewall:Firewall",
            f"{svc}-allow-health",
            parent=comp["urn"],
            parent_type=ctype,
            provider=prov,
            id_=f"projects/{GCP_PROJECT}/global/firewalls/{svc}-allow-health",
            inputs={
                "network": f"projects/{GCP_PROJECT}/global/networks/ml",
                "direction": "INGRESS",
                "allows": [{"protocol": "tcp", "ports": ["8080"]}],
                "sourceRanges": ["35.191.0.0/16", "130.211.0.0/22"],
                "targetServiceAccounts": [email],
            },
            outputs={"priority": 1000, "project": GCP_PROJECT},
            deps={"targetServiceAccounts": [account["urn"]]},
        )
        return [comp, bucket, account, member, firewall]

    def azure_service(self, i: int) -> list[dict[str, Any]]:
        team = self.rng.choice(TEAMS)
        svc = f"asvc{i}"
        location = self.rng.choice(AZ_LOCATIONS)
        prov = self.providers[("azure-native", location)]
        ctype = "acme:platform:AzureService"
        comp = self.resource(ctype, svc, parent=STACK_URN)
        tags = self.tags(team, svc)
        group = f"rg-ml-{location}"
        rg_id = f"/subscriptions/{AZ_SUB}/resourceGroups/{group}"
        account_name = f"acme{svc}{_hex(svc, n=6)}"
        storage = self.resource(
            "azure-native:storage:StorageAccount",
            f"{svc}-storage",
            parent=comp["urn"],
            parent_type=ctype,
            provider=prov,
            id_=f"{rg_id}/providers/Microsoft.Storage/storageAccounts/{account_name}",
            inputs={
                "accountName": account_name,
                "resourceGroupName": group,
                "location": location,
                "kind": "StorageV2",
                "sku": {"name": "Standard_LRS"},
                "minimumTlsVersion": "TLS1_2",
                "allowBlobPublicAccess": False,
                "tags": tags,
            },
            outputs={
                "name": account_name,
                "provisioningState": "Succeeded",
                "primaryEndpoints": {"blob": f"https://{account_name}.blob.core.windows.net/"},
            },
        )
        nsg_name = f"{svc}-nsg"
        nsg = self.resource(
            "azure-native:network:NetworkSecurityGroup",
            nsg_name,
            parent=comp["urn"],
            parent_type=ctype,
            provider=prov,
            id_=f"{rg_id}/providers/Microsoft.Network/networkSecurityGroups/{nsg_name}",
            inputs={
                "resourceGroupName": group,
                "location": location,
                "securityRules": [
                    {
                        "name": "deny-internet-in",
                        "priority": 4000,
                        "direction": "Inbound",
                        "access": "Deny",
                        "protocol": "*",
                        "sourceAddressPrefix": "Internet",
                        "sourcePortRange": "*",
                        "destinationAddressPrefix": "*",
                        "destinationPortRange": "*",
                    }
                ],
                "tags": tags,
            },
            outputs={"name": nsg_name, "provisioningState": "Succeeded"},
        )
        return [comp, storage, nsg]

    def aws_gpu_pool(self, i: int) -> list[dict[str, Any]]:
        """An Auto Scaling group of GPU machines on a launch template (with its role, instance
        profile and security group)."""
        team = self.rng.choice(TEAMS)
        pool = f"pool{i}"
        region = self.rng.choice(AWS_REGIONS)
        prov = self.providers[("aws", region)]
        ctype = "acme:ml:GpuPool"
        comp = self.resource(ctype, pool, parent=STACK_URN)
        tags = {**self.tags(team, pool), "workload": pool}
        role_name = f"{pool}-role-{_hex(pool, n=7)}"
        kw: dict[str, Any] = {"parent": comp["urn"], "parent_type": ctype, "provider": prov}
        role = self.resource(
            "aws:iam/role:Role",
            f"{pool}-role",
            id_=role_name,
            inputs={"assumeRolePolicy": ASSUME_EC2, "tags": tags},
            outputs={
                "arn": f"arn:aws:iam::{ACCOUNT}:role/{role_name}",
                "name": role_name,
                "path": "/",
                "tagsAll": tags,
            },
            **kw,
        )
        profile_name = f"{pool}-profile-{_hex(pool, 'p', n=7)}"
        profile = self.resource(
            "aws:iam/instanceProfile:InstanceProfile",
            f"{pool}-profile",
            id_=profile_name,
            inputs={"role": role_name, "tags": tags},
            outputs={"arn": f"arn:aws:iam::{ACCOUNT}:instance-profile/{profile_name}"},
            deps={"role": [role["urn"]]},
            **kw,
        )
        sg_id = f"sg-0{_hex(pool, 'sg', n=16)}"
        sg = self.resource(
            "aws:ec2/securityGroup:SecurityGroup",
            f"{pool}-sg",
            id_=sg_id,
            inputs={
                "description": f"{pool} GPU workers",
                "vpcId": f"vpc-0{_hex(region, n=16)}",
                "egress": [
                    {"protocol": "tcp", "fromPort": 443, "toPort": 443, "cidrBlocks": ["0.0.0.0/0"]}
                ],
                "tags": tags,
            },
            outputs={"arn": f"arn:aws:ec2:{region}:{ACCOUNT}:security-group/{sg_id}"},
            **kw,
        )
        lt_id = f"lt-0{_hex(pool, 'lt', n=16)}"
        spot = self.rng.random() < 0.6
        template: dict[str, Any] = {
            "namePrefix": f"{pool}-",
            "imageId": f"ami-0{_hex(region, 'dlami', n=16)}",
            "instanceType": self.rng.choice(AWS_GPU_TYPES),
            "iamInstanceProfile": {"arn": profile["outputs"]["arn"]},
            "vpcSecurityGroupIds": [sg_id],
            "metadataOptions": {
                "httpEndpoint": "enabled",
                "httpTokens": "required",
                "httpPutResponseHopLimit": 1,
            },
            "blockDeviceMappings": [
                {
                    "deviceName": "/dev/xvda",
                    "ebs": {"volumeSize": 200, "volumeType": "gp3", "encrypted": "true"},
                }
            ],
            "tagSpecifications": [{"resourceType": "instance", "tags": tags}],
            "tags": tags,
        }
        if spot:
            template["instanceMarketOptions"] = {"marketType": "spot"}
        lt = self.resource(
            "aws:ec2/launchTemplate:LaunchTemplate",
            f"{pool}-lt",
            id_=lt_id,
            inputs=template,
            outputs={
                "arn": f"arn:aws:ec2:{region}:{ACCOUNT}:launch-template/{lt_id}",
                "latestVersion": 1,
                "defaultVersion": 1,
            },
            deps={
                "iamInstanceProfile": [profile["urn"]],
                "vpcSecurityGroupIds": [sg["urn"]],
            },
            **kw,
        )
        most = self.rng.choice([1, 2, 4])
        group_name = f"{pool}-asg-{_hex(pool, 'asg', n=7)}"
        asg = self.resource(
            "aws:autoscaling/group:Group",
            f"{pool}-asg",
            id_=group_name,
            inputs={
                "launchTemplate": {"id": lt_id, "version": "$Latest"},
                "minSize": 0,
                "maxSize": most,
                "desiredCapacity": self.rng.randint(0, most),
                "vpcZoneIdentifiers": [f"subnet-0{_hex(region, z, n=16)}" for z in "ab"],
                "capacityRebalance": spot,
                "healthCheckType": "EC2",
                "tags": [
                    {"key": k, "value": v, "propagateAtLaunch": True} for k, v in tags.items()
                ],
            },
            outputs={
                "arn": f"arn:aws:autoscaling:{region}:{ACCOUNT}:autoScalingGroup:"
                f"{uuid.uuid5(uuid.NAMESPACE_DNS, pool)}:autoScalingGroupName/{group_name}",
                "name": group_name,
                "defaultCooldown": 300,
            },
            deps={"launchTemplate": [lt["urn"]]},
            **kw,
        )
        return [comp, role, profile, sg, lt, asg]

    def aws_gpu_instance(self, i: int) -> list[dict[str, Any]]:
        team = self.rng.choice(TEAMS)
        name = f"box{i}"
        region = self.rng.choice(AWS_REGIONS)
        prov = self.providers[("aws", region)]
        ctype = "acme:ml:Workstation"
        comp = self.resource(ctype, name, parent=STACK_URN)
        tags = {**self.tags(team, name), "workload": name}
        iid = f"i-0{_hex(name, n=16)}"
        instance = self.resource(
            "aws:ec2/instance:Instance",
            f"{name}-vm",
            parent=comp["urn"],
            parent_type=ctype,
            provider=prov,
            id_=iid,
            inputs={
                "ami": f"ami-0{_hex(region, 'dlami', n=16)}",
                "instanceType": self.rng.choice(AWS_GPU_TYPES[:4]),
                "subnetId": f"subnet-0{_hex(region, 'a', n=16)}",
                "vpcSecurityGroupIds": [f"sg-0{_hex(region, 'ws', n=16)}"],
                "associatePublicIpAddress": False,
                "metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 1},
                "rootBlockDevice": {"volumeSize": 500, "volumeType": "gp3", "encrypted": True},
                "tags": tags,
            },
            outputs={
                "arn": f"arn:aws:ec2:{region}:{ACCOUNT}:instance/{iid}",
                "availabilityZone": f"{region}a",
                "privateIp": f"10.{i % 250}.{i // 250 % 250}.{i % 200 + 10}",
                "instanceState": "running",
                "tagsAll": tags,
            },
        )
        return [comp, instance]

    def gcp_gpu_instance(self, i: int) -> list[dict[str, Any]]:
        team = self.rng.choice(TEAMS)
        name = f"gvm{i}"
        region = self.rng.choice(list(GCP_REGIONS))
        zone = GCP_REGIONS[region]
        prov = self.providers[("gcp", region)]
        ctype = "acme:ml:GcpTrainer"
        comp = self.resource(ctype, name, parent=STACK_URN)
        labels = {**self.tags(team, name, gcp=True), "workload": name}
        machine, accelerator = self.rng.choice(GCP_GPU)
        spot = self.rng.random() < 0.7
        inputs: dict[str, Any] = {
            "machineType": machine,
            "zone": zone,
            "bootDisk": {
                "initializeParams": {
                    "image": "projects/deeplearning-platform-release/global/images/family/"
                    "common-cu124-debian-11",
                    "size": 200,
                    "type": "pd-balanced",
                },
                "autoDelete": True,
            },
            "networkInterfaces": [
                {"subnetwork": f"projects/{GCP_PROJECT}/regions/{region}/subnetworks/ml-private"}
            ],
            "scheduling": {
                "onHostMaintenance": "TERMINATE",
                "automaticRestart": not spot,
                "preemptible": spot,
                "provisioningModel": "SPOT" if spot else "STANDARD",
            },
            "serviceAccount": {
                "email": f"trainer@{GCP_PROJECT}.iam.gserviceaccount.com",
                "scopes": ["https://www.googleapis.com/auth/cloud-platform"],
            },
            "shieldedInstanceConfig": {"enableVtpm": True, "enableIntegrityMonitoring": True},
            "metadata": {"enable-oslogin": "TRUE"},
            "labels": labels,
        }
        if accelerator:
            inputs["guestAccelerators"] = [{"type": accelerator[0], "count": accelerator[1]}]
        instance = self.resource(
            "gcp:compute/instance:Instance",
            f"{name}-vm",
            parent=comp["urn"],
            parent_type=ctype,
            provider=prov,
            id_=f"projects/{GCP_PROJECT}/zones/{zone}/instances/{name}-vm-{_hex(name, n=7)}",
            inputs=inputs,
            outputs={
                "instanceId": str(4000000000000000000 + i),
                "selfLink": f"https://www.googleapis.com/compute/v1/projects/{GCP_PROJECT}/zones/"
                f"{zone}/instances/{name}-vm-{_hex(name, n=7)}",
                "currentStatus": "RUNNING",
                "project": GCP_PROJECT,
            },
        )
        return [comp, instance]

    def azure_gpu_vm(self, i: int) -> list[dict[str, Any]]:
        team = self.rng.choice(TEAMS)
        name = f"avm{i}"
        location = self.rng.choice(AZ_LOCATIONS)
        prov = self.providers[("azure-native", location)]
        ctype = "acme:ml:AzureGpuVm"
        comp = self.resource(ctype, name, parent=STACK_URN)
        tags = {**self.tags(team, name), "workload": name}
        group = f"rg-ml-{location}"
        rg_id = f"/subscriptions/{AZ_SUB}/resourceGroups/{group}"
        nic_id = f"{rg_id}/providers/Microsoft.Network/networkInterfaces/{name}-nic"
        kw: dict[str, Any] = {"parent": comp["urn"], "parent_type": ctype, "provider": prov}
        nic = self.resource(
            "azure-native:network:NetworkInterface",
            f"{name}-nic",
            id_=nic_id,
            inputs={
                "resourceGroupName": group,
                "location": location,
                "ipConfigurations": [
                    {
                        "name": "internal",
                        "subnet": {
                            "id": f"{rg_id}/providers/Microsoft.Network/virtualNetworks/"
                            "ml/subnets/gpu"
                        },
                        "privateIPAllocationMethod": "Dynamic",
                    }
                ],
                "tags": tags,
            },
            outputs={"name": f"{name}-nic", "provisioningState": "Succeeded"},
            **kw,
        )
        spot = self.rng.random() < 0.5
        vm_inputs: dict[str, Any] = {
            "vmName": name,
            "resourceGroupName": group,
            "location": location,
            "hardwareProfile": {"vmSize": self.rng.choice(AZ_GPU)},
            "priority": "Spot" if spot else "Regular",
            "storageProfile": {
                "imageReference": {
                    "publisher": "microsoft-dsvm",
                    "offer": "ubuntu-hpc",
                    "sku": "2204",
                    "version": "latest",
                },
                "osDisk": {
                    "createOption": "FromImage",
                    "managedDisk": {"storageAccountType": "Premium_LRS"},
                    "diskSizeGB": 256,
                },
            },
            "osProfile": {
                "computerName": name,
                "adminUsername": "azureuser",
                "linuxConfiguration": {"disablePasswordAuthentication": True},
            },
            "networkProfile": {"networkInterfaces": [{"id": nic_id, "primary": True}]},
            "tags": tags,
        }
        if spot:
            vm_inputs["evictionPolicy"] = "Deallocate"
            vm_inputs["billingProfile"] = {"maxPrice": -1}
        vm = self.resource(
            "azure-native:compute:VirtualMachine",
            f"{name}-vm",
            id_=f"{rg_id}/providers/Microsoft.Compute/virtualMachines/{name}",
            inputs=vm_inputs,
            outputs={"name": name, "vmId": str(uuid.uuid5(uuid.NAMESPACE_DNS, name))},
            deps={"networkProfile": [nic["urn"]]},
            **kw,
        )
        return [comp, nic, vm]


# How often each unit comes (ordinary services outnumber GPU capacity several times over).
_UNITS = [
    ("aws_service", 40),
    ("gcp_service", 18),
    ("azure_service", 12),
    ("aws_gpu_pool", 8),
    ("aws_gpu_instance", 8),
    ("gcp_gpu_instance", 8),
    ("azure_gpu_vm", 6),
]


def _values(text: str) -> int:
    """What ``json_input.parse_json`` counts (an upper bound of the values)."""
    return text.count(",") + text.count("[") + text.count("{")


def _indented(value: Any, depth: int) -> str:
    """``value`` as Go's json.MarshalIndent(v, "", "    ") writes it at ``depth`` levels."""
    text = json.dumps(value, indent=4, ensure_ascii=False)
    return text.replace("\n", "\n" + "    " * depth)


def build_export(resources: int, seed: int = 11) -> tuple[str, dict[str, Any]]:
    """(the export's text, its figures): up to ``resources`` resources, fewer when the input
    limits of a stack export stop it first (cut after the last whole component that fits)."""
    stack = _Stack(seed)
    manifest = {
        "time": WHEN,
        "magic": hashlib.sha256(b"v3.205.0").hexdigest(),
        "version": "v3.205.0",
    }
    salt = f"v1:{_hex('salt', n=12)}:v1:{_hex('s', n=24)}"
    secrets = {"type": "passphrase", "state": {"salt": salt}}
    head = (
        '{\n    "version": 3,\n    "deployment": {\n        "manifest": '
        + _indented(manifest, 2)
        + ',\n        "secrets_providers": '
        + _indented(secrets, 2)
        + ',\n        "resources": [\n'
    )
    tail = "\n        ]\n    }\n}\n"
    # Room for the head, the tail and the stack's own outputs (written last, known then).
    budget_values = MAX_JSON_VALUES - _values(head) - _values(tail) - 200
    budget_bytes = MAX_JSON_BYTES - len(head.encode()) - len(tail) - 20_000
    parts: list[str] = []
    used_values = used_bytes = count = 0
    limited_by = None

    def add(batch: list[dict[str, Any]]) -> str | None:
        """None when ``batch`` fits, else the limit it would pass."""
        nonlocal used_values, used_bytes, count
        texts = ["            " + _indented(r, 3) for r in batch]
        values = sum(_values(t) + 1 for t in texts)  # +1: the comma before each
        size = sum(len(t.encode()) + 2 for t in texts)
        if used_values + values > budget_values:
            return "values"
        if used_bytes + size > budget_bytes:
            return "bytes"
        parts.extend(texts)
        used_values += values
        used_bytes += size
        count += len(batch)
        return None

    kinds = [name for name, weight in _UNITS for _ in range(weight)]
    providers = list(stack.provider_resources())
    add(providers)
    counts: dict[str, int] = {}
    i = 0
    while count + 1 < resources:
        kind = stack.rng.choice(kinds)
        batch = getattr(stack, kind)(i)[: resources - 1 - count]
        limited_by = add(batch)
        if limited_by:
            break
        counts[kind] = counts.get(kind, 0) + 1
        i += 1
    root = {
        "urn": STACK_URN,
        "custom": False,
        "type": "pulumi:pulumi:Stack",
        "outputs": {"resourceCount": count + 1},
        "created": WHEN,
        "modified": WHEN,
    }
    text = head + ",\n".join(["            " + _indented(root, 3), *parts]) + tail
    figures = {
        "requested": resources,
        "resources": count + 1,
        "bytes": len(text.encode()),
        "values": _values(text) + 1,
        "limited_by": limited_by,
        "units": counts,
    }
    return text, figures


def build_full_count_export(resources: int, realistic: int = 5_000) -> tuple[str, int, int]:
    """(text, resources, values): exactly ``resources`` resources within the input limits —
    the first ``realistic`` of ``build_export``'s mix (GPU capacity among ordinary resources),
    then plain tagged buckets, each as few JSON values as a real bucket's state can be, which
    is what lets 60,000 resources fit under 1,000,000 values."""
    document = json.loads(build_export(realistic)[0])
    held = document["deployment"]["resources"]
    provider = next(r for r in held if r["type"] == "pulumi:providers:aws")
    reference = f"{provider['urn']}::{provider['id']}"
    for i in range(resources - len(held)):
        name = f"bulk-{i}"
        held.append(
            {
                "urn": f"{PREFIX}aws:s3/bucket:Bucket::{name}",
                "custom": True,
                "type": "aws:s3/bucket:Bucket",
                "id": name,
                "inputs": {"bucket": name, "tags": {"team": "data"}},
                "outputs": {"bucket": name},
                "parent": STACK_URN,
                "provider": reference,
            }
        )
    text = json.dumps(document)
    values = _values(text) + 1
    if values > MAX_JSON_VALUES or len(text.encode()) > MAX_JSON_BYTES:
        raise SystemExit(f"a {resources:,}-resource export does not fit the input limits")
    return text, len(held), values


# --- measuring --------------------------------------------------------------------------------


def _tree_rss(root: int) -> int:
    """Resident bytes of ``root`` and its descendants (from /proc: parent of each process)."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
            statm = Path(entry.path, "statm").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        rss[pid] = int(statm.split()[1]) * page
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in tree:
                tree.add(pid)
                frontier.append(pid)
    return sum(rss.get(pid, 0) for pid in tree)


def run_once(
    command: list[str], out_dir: Path, timeout: float
) -> tuple[float, float, float, float, int | None]:
    """(wall seconds, CPU seconds, peak RSS MB of the largest process, peak MB of the tree
    sampled, exit status: None when it ran past ``timeout`` seconds and was killed). CPU time
    (user + system, the processes waited for included) moves less than wall time with the load
    of a shared machine.

    Run under GNU time (``-f "%M %U %S"``): a child spawned from this process would inherit
    its high-water RSS in ``ru_maxrss`` (Linux records the parent's at the exec after a vfork),
    and this process held the export it wrote; GNU time's child starts from a small one.
    Without /usr/bin/time, ``os.wait4``'s figures, which are that floor at least."""
    usage_file = out_dir / "rusage"
    usage_file.unlink(missing_ok=True)
    timed = [TIME, "-f", "%M %U %S", "-o", str(usage_file), *command] if TIME else command
    with (out_dir / "stdout").open("wb") as out, (out_dir / "stderr").open("wb") as err:
        start = time.perf_counter()
        # Its own session, so that a hung command is killed with every process it started.
        proc = subprocess.Popen(
            timed,
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            cwd=ROOT,
            start_new_session=True,
        )
        killer = threading.Timer(timeout, os.killpg, (proc.pid, signal.SIGKILL))
        killer.start()
        peak_tree = 0
        done = threading.Event()

        def sample() -> None:
            nonlocal peak_tree
            while not done.wait(0.05):
                with contextlib.suppress(OSError, ValueError):  # a process gone meanwhile
                    peak_tree = max(peak_tree, _tree_rss(proc.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        killer.cancel()
        timed_out = seconds >= timeout
        with contextlib.suppress(ProcessLookupError):  # what the command left running
            os.killpg(proc.pid, signal.SIGKILL)
        done.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
    peak_kb, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
    if timed_out:
        return seconds, cpu, peak_kb / 1024, peak_tree / 2**20, None
    if TIME:
        # The last line (a first one says so when the command was killed by a signal).
        kb, user, system = usage_file.read_text().split("\n")[-2].split()
        peak_kb, cpu = int(kb), float(user) + float(system)
    return seconds, cpu, peak_kb / 1024, peak_tree / 2**20, proc.returncode


def measure(
    label: str, command: list[str], runs: int, ok: tuple[int, ...], timeout: float
) -> dict[str, Any]:
    times, cpus, peaks, trees, code, hung = [], [], [], [], None, 0
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(runs):
            seconds, cpu, peak, tree, code = run_once(command, Path(scratch), timeout)
            if code is None:
                hung += 1  # counted at the time-out: the median and max show it
            elif code not in ok:
                stderr = (Path(scratch) / "stderr").read_text(errors="replace")[-2000:]
                raise SystemExit(f"{label}: exit {code}\n{' '.join(command)}\n{stderr}")
            times.append(seconds)
            cpus.append(cpu)
            if code is not None:  # a killed run's memory says nothing
                peaks.append(peak)
                trees.append(tree)
        output_bytes = (Path(scratch) / "stdout").stat().st_size
    median = statistics.median(times)
    peak = max(peaks, default=0.0)
    return {
        "case": label,
        "median_s": round(median, 2),
        "min_s": round(min(times), 2),
        "max_s": round(max(times), 2),
        "cpu_s": round(statistics.median(cpus), 2),
        "peak_mb": round(peak),
        "tree_mb": round(max(trees, default=0.0)),
        "exit": code,
        "timed_out": hung,
        "output_bytes": output_bytes,
        "goal_s": GOAL_SECONDS,
        "goal_mb": GOAL_MB,
        "met": median < GOAL_SECONDS and peak < GOAL_MB and not hung,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--resources", type=int, default=60_000, help="of the stack export")
    parser.add_argument("--only", choices=["plan", "check"], help="one half of the cases")
    parser.add_argument("--keep", type=Path, help="write the specs and the export here")
    parser.add_argument("--json", action="store_true", help="machine-readable results")
    parser.add_argument(
        "--timeout", type=float, default=300.0, help="seconds before a run counts as hung"
    )
    args = parser.parse_args()
    results, notes = [], []
    with tempfile.TemporaryDirectory() as tmp:
        where = args.keep or Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        cases: list[tuple[str, list[str], tuple[int, ...]]] = []
        if args.only in (None, "plan"):
            for distinct, what in ((False, "same limits"), (True, "own limits")):
                kind = "own" if distinct else "same"
                spec = where / f"spec-{WORKLOADS}x{ENVIRONMENTS}-{kind}.yaml"
                spec.write_text(spec_with_environments(distinct), encoding="utf-8")
                n = f"{WORKLOADS}x{ENVIRONMENTS} envs, {what}"
                for fmt in ("table", "json"):
                    command = [GPUFLEET, "plan", str(spec), "--format", fmt]
                    cases.append((f"plan {n} ({fmt})", command, (0, 1)))
        if args.only in (None, "check"):
            text, figures = build_export(args.resources)
            export = where / f"export-{figures['resources']}.json"
            export.write_text(text, encoding="utf-8")
            notes.append(
                f"export: {figures['resources']:,} resources of {figures['requested']:,} asked, "
                f"{figures['bytes'] / 2**20:.1f} MiB (limit {MAX_JSON_BYTES / 2**20:.0f}), "
                f"{figures['values']:,} values (limit {MAX_JSON_VALUES:,})"
                + (f"; cut by the {figures['limited_by']} limit" if figures["limited_by"] else "")
            )
            cases.append(
                (
                    f"check --from-export {figures['resources']:,} resources (json)",
                    [
                        GPUFLEET,
                        "check",
                        "--from-export",
                        str(export),
                        "--env",
                        STACK,
                        "--format",
                        "json",
                    ],
                    (0, 1),
                )
            )
            # The figure, 60,000 resources, as many as fit: lean resources after a
            # realistic head.
            full_text, full_count, full_values = build_full_count_export(args.resources)
            full = where / f"export-{full_count}-lean.json"
            full.write_text(full_text, encoding="utf-8")
            notes.append(
                f"export: {full_count:,} resources (5,000 as above, then plain buckets), "
                f"{len(full_text.encode()) / 2**20:.1f} MiB, {full_values:,} values"
            )
            cases.append(
                (
                    f"check --from-export {full_count:,} resources, lean (json)",
                    [GPUFLEET, "check", "--from-export", str(full), "--env", STACK, *JSON],
                    (0, 1),
                )
            )
        for label, command, ok in cases:
            results.append(measure(label, command, args.runs, ok, args.timeout))
    if args.json:
        print(json.dumps({"notes": notes, "results": results}, indent=2))
    else:
        for note in notes:
            print(note)
        print(
            f"{'case':<52} {'median':>8} {'min':>8} {'max':>8} {'cpu':>8} {'peak':>7} {'tree':>7}"
            "  goal"
        )
        for r in results:
            status = "ok" if r["met"] else "MISSED"
            if r["timed_out"]:
                status += f" ({r['timed_out']} run(s) killed at --timeout)"
            print(
                f"{r['case']:<52} {r['median_s']:>7.2f}s {r['min_s']:>7.2f}s {r['max_s']:>7.2f}s "
                f"{r['cpu_s']:>7.2f}s "
                f"{r['peak_mb']:>5}MB {r['tree_mb']:>5}MB  <{r['goal_s']:g}s <{r['goal_mb']:g}MB "
                f"{status}"
            )
    return 0 if all(r["met"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())

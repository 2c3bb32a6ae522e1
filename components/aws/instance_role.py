"""An instance role and profile for GPU instances, with only the permissions passed in.

The trust policy admits EC2 alone. Permissions come as inline policies scoped by the caller
(e.g. read the fleet's own interruption queue); Systems Manager Session Manager access
(AmazonSSMManagedInstanceCore) is on by default so nobody needs SSH or an open port.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import pulumi
import pulumi_aws as aws

SSM_CORE_POLICY = "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"

_EC2_TRUST = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": "ec2.amazonaws.com"},
                "Action": "sts:AssumeRole",
            }
        ],
    }
)


def instance_profile(
    name: str,
    *,
    tags: dict[str, str],
    parent: pulumi.Resource,
    inline_policies: Mapping[str, pulumi.Input[str]] | None = None,
    ssm_access: bool = True,
) -> tuple[aws.iam.Role, aws.iam.InstanceProfile]:
    opts = pulumi.ResourceOptions(parent=parent)
    role = aws.iam.Role(
        f"{name}-role",
        assume_role_policy=_EC2_TRUST,
        description="gpufleet GPU instances",
        tags=tags,
        opts=opts,
    )
    for policy_name, document in (inline_policies or {}).items():
        aws.iam.RolePolicy(f"{name}-{policy_name}", role=role.id, policy=document, opts=opts)
    if ssm_access:
        aws.iam.RolePolicyAttachment(
            f"{name}-ssm", role=role.name, policy_arn=SSM_CORE_POLICY, opts=opts
        )
    profile = aws.iam.InstanceProfile(f"{name}-profile", role=role.name, tags=tags, opts=opts)
    return role, profile

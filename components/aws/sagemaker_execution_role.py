"""The IAM role a SageMaker training job runs as, reaching only what the job needs.

Assumable by ``sagemaker.amazonaws.com`` only. Its inline policy allows: the checkpoint bucket
(list, and get / put / delete objects), pulling from the one ECR repository of the training
image, the SageMaker training log group, and, where given, the KMS key; plus
``ecr:GetAuthorizationToken``, which AWS does not allow to be scoped to a resource, and for a
job in a VPC the network-interface actions SageMaker needs for interfaces that do not exist yet.
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi_aws as aws

TRAINING_LOG_GROUP = "/aws/sagemaker/TrainingJobs"


def sagemaker_execution_role(
    name: str,
    *,
    parent: pulumi.Resource,
    tags: dict[str, str],
    bucket_arn: pulumi.Output[str],
    repository_arn: str,
    kms_key_arn: pulumi.Input[str] | None,
    in_vpc: bool,
) -> tuple[aws.iam.Role, aws.iam.RolePolicy]:
    """The role and its inline policy (a job must wait for the policy, not only the role)."""
    child = pulumi.ResourceOptions(parent=parent)
    invoke = pulumi.InvokeOutputOptions(parent=parent)
    identity = aws.get_caller_identity_output(opts=invoke)
    region = aws.get_region_output(opts=invoke)
    partition = aws.get_partition_output(opts=invoke)
    role = aws.iam.Role(
        f"{name}-role",
        assume_role_policy=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Principal": {"Service": "sagemaker.amazonaws.com"},
                        "Action": "sts:AssumeRole",
                    }
                ],
            }
        ),
        description="gpufleet SageMaker managed spot training",
        tags=tags,
        opts=child,
    )
    access = aws.iam.RolePolicy(
        f"{name}-access",
        role=role.id,
        policy=pulumi.Output.all(
            bucket_arn,
            partition.partition,
            region.region,
            identity.account_id,
            kms_key_arn,
        ).apply(
            lambda v: execution_policy(
                bucket_arn=v[0],
                partition=v[1],
                region=v[2],
                account=v[3],
                kms_key_arn=v[4],
                repository_arn=repository_arn,
                in_vpc=in_vpc,
            )
        ),
        opts=child,
    )
    return role, access


def execution_policy(
    *,
    bucket_arn: str,
    partition: str,
    region: str,
    account: str,
    kms_key_arn: str | None,
    repository_arn: str,
    in_vpc: bool,
) -> str:
    logs = f"arn:{partition}:logs:{region}:{account}:log-group:{TRAINING_LOG_GROUP}"
    statements: list[dict[str, Any]] = [
        {
            "Sid": "CheckpointBucket",
            "Effect": "Allow",
            "Action": ["s3:ListBucket", "s3:GetBucketLocation"],
            "Resource": bucket_arn,
        },
        {
            "Sid": "CheckpointObjects",
            "Effect": "Allow",
            "Action": [
                "s3:GetObject",
                "s3:PutObject",
                "s3:DeleteObject",
                "s3:AbortMultipartUpload",
            ],
            "Resource": f"{bucket_arn}/*",
        },
        {
            "Sid": "PullTrainingImage",
            "Effect": "Allow",
            "Action": [
                "ecr:BatchGetImage",
                "ecr:GetDownloadUrlForLayer",
                "ecr:BatchCheckLayerAvailability",
            ],
            "Resource": repository_arn,
        },
        {
            # AWS does not allow scoping GetAuthorizationToken to a resource.
            "Sid": "EcrLogin",
            "Effect": "Allow",
            "Action": "ecr:GetAuthorizationToken",
            "Resource": "*",
        },
        {
            "Sid": "TrainingLogs",
            "Effect": "Allow",
            "Action": [
                "logs:CreateLogGroup",
                "logs:CreateLogStream",
                "logs:PutLogEvents",
                "logs:DescribeLogStreams",
            ],
            "Resource": [logs, f"{logs}:log-stream:*"],
        },
    ]
    if kms_key_arn:
        statements.append(
            {
                "Sid": "EncryptionKey",
                "Effect": "Allow",
                "Action": ["kms:Decrypt", "kms:GenerateDataKey"],
                "Resource": kms_key_arn,
            }
        )
    if in_vpc:
        statements.append(
            {
                # SageMaker creates the job's network interfaces itself; their ids do not exist
                # yet, so these actions cannot name resources.
                "Sid": "JobNetworkInterfaces",
                "Effect": "Allow",
                "Action": [
                    "ec2:CreateNetworkInterface",
                    "ec2:CreateNetworkInterfacePermission",
                    "ec2:DeleteNetworkInterface",
                    "ec2:DeleteNetworkInterfacePermission",
                    "ec2:DescribeNetworkInterfaces",
                    "ec2:DescribeVpcs",
                    "ec2:DescribeDhcpOptions",
                    "ec2:DescribeSubnets",
                    "ec2:DescribeSecurityGroups",
                ],
                "Resource": "*",
            }
        )
    return json.dumps({"Version": "2012-10-17", "Statement": statements})

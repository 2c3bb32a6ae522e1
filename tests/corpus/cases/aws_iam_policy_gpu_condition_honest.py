"""Honest: IAM policies whose conditions name GPU machine types (who may launch them, and a
deny of the largest) are permissions, not machines."""

import json

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

aws.iam.Policy(
    NAME,
    description="ML engineers may start g5 and p4d machines, never p5",
    policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": ["ec2:RunInstances"],
                    "Resource": "arn:aws:ec2:*:*:instance/*",
                    "Condition": {
                        "StringEquals": {"ec2:InstanceType": ["g5.12xlarge", "p4d.24xlarge"]}
                    },
                },
                {
                    "Effect": "Deny",
                    "Action": ["ec2:RunInstances", "sagemaker:CreateTrainingJob"],
                    "Resource": "*",
                    "Condition": {
                        "StringLike": {
                            "ec2:InstanceType": "p5.*",
                            "sagemaker:InstanceTypes": ["ml.p5.48xlarge"],
                        }
                    },
                },
            ],
        }
    ),
    tags=TAGS,
)
aws.iam.Role(
    f"{NAME}-role",
    assume_role_policy=json.dumps(
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
    ),
    inline_policies=[
        {
            "name": "no-big-gpus",
            "policy": json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Effect": "Deny",
                            "Action": "ec2:RunInstances",
                            "Resource": "*",
                            "Condition": {
                                "ForAnyValue:StringLike": {"ec2:InstanceType": ["p4d.*", "p5.*"]}
                            },
                        }
                    ],
                }
            ),
        }
    ],
    tags=TAGS,
)

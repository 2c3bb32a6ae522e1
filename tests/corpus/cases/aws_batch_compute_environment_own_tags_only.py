"""A Batch compute environment of g5 machines with the cost tags on itself only: its
computeResources set no tags, so the instances it launches carry none."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget", "required-tags"}

aws.batch.ComputeEnvironment(
    NAME,
    type="MANAGED",
    compute_resources={
        "type": "EC2",
        "instance_types": ["g5.xlarge", "g5.2xlarge"],
        "min_vcpus": 0,
        "max_vcpus": 16,
        "subnets": ["subnet-0aaaaaaaaaaaaaaaa"],
        "security_group_ids": ["sg-0aaaaaaaaaaaaaaaa"],
        "instance_role": "arn:aws:iam::123456789012:instance-profile/batch",
    },
    tags=TAGS,
)

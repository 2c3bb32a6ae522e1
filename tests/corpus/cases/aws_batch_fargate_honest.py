"""A Fargate AWS Batch compute environment: no GPUs, passes."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

aws.batch.ComputeEnvironment(
    NAME,
    type="MANAGED",
    compute_resources={
        "type": "FARGATE",
        "max_vcpus": 64,
        "subnets": ["subnet-0aaaaaaaaaaaaaaaa"],
        "security_group_ids": ["sg-0aaaaaaaaaaaaaaaa"],
    },
    tags=TAGS,
)

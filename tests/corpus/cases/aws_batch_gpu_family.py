"""An AWS Batch compute environment of the p4d family up to 384 vCPUs: 4 x 8 A100s."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget", "gpu-fleet-size"}

aws.batch.ComputeEnvironment(
    NAME,
    type="MANAGED",
    compute_resources={
        "type": "EC2",
        "instance_types": ["p4d"],
        "max_vcpus": 384,
        "subnets": ["subnet-0aaaaaaaaaaaaaaaa"],
        "security_group_ids": ["sg-0aaaaaaaaaaaaaaaa"],
        "instance_role": "arn:aws:iam::123456789012:instance-profile/batch",
        "tags": TAGS,  # what its instances carry (the top-level tags stay on it)
    },
    tags=TAGS,
)

"""A Spot AWS Batch compute environment of g5.48xlarge up to 576 vCPUs: 3 x 8 A10Gs."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget", "gpu-fleet-size"}

aws.batch.ComputeEnvironment(
    NAME,
    type="MANAGED",
    compute_resources={
        "type": "SPOT",
        "instance_types": ["g5.48xlarge"],
        "max_vcpus": 576,
        "subnets": ["subnet-0aaaaaaaaaaaaaaaa"],
        "security_group_ids": ["sg-0aaaaaaaaaaaaaaaa"],
        "instance_role": "arn:aws:iam::123456789012:instance-profile/batch",
        "tags": TAGS,  # what its instances carry (the top-level tags stay on it)
        "spot_iam_fleet_role": "arn:aws:iam::123456789012:role/spot-fleet",
    },
    tags=TAGS,
)

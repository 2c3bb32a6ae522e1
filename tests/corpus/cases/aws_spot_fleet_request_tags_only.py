"""A Spot Fleet request of 2 x g5.xlarge whose tags are on the request only: its launch
specification sets none, so its instances launch untagged."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

aws.ec2.SpotFleetRequest(
    NAME,
    iam_fleet_role="arn:aws:iam::123456789012:role/aws-ec2-spot-fleet-tagging-role",
    target_capacity=2,
    launch_specifications=[
        {
            "ami": "ami-0aaaaaaaaaaaaaaaa",
            "instance_type": "g5.xlarge",
            "subnet_id": "subnet-0aaaaaaaaaaaaaaaa",
        }
    ],
    tags=TAGS,
)

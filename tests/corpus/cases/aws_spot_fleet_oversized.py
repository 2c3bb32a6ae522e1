"""A Spot Fleet request of 3 x p4d.24xlarge: 24 A100s."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

aws.ec2.SpotFleetRequest(
    NAME,
    iam_fleet_role="arn:aws:iam::123456789012:role/spot-fleet",
    target_capacity=3,
    launch_specifications=[
        {
            "ami": "ami-0aaaaaaaaaaaaaaaa",
            "instance_type": "p4d.24xlarge",
            "subnet_id": "subnet-0aaaaaaaaaaaaaaaa",
            "tags": TAGS,
        }
    ],
    tags=TAGS,
)

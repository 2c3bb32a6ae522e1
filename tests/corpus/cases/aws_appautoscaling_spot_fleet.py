"""A Spot Fleet request of one g5.12xlarge (4 A10Gs) that Application Auto Scaling takes to 10:
40 A10Gs."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

fleet = aws.ec2.SpotFleetRequest(
    NAME,
    iam_fleet_role="arn:aws:iam::123456789012:role/spot-fleet",
    target_capacity=1,
    launch_specifications=[
        {
            "ami": "ami-0aaaaaaaaaaaaaaaa",
            "instance_type": "g5.12xlarge",
            "subnet_id": "subnet-0aaaaaaaaaaaaaaaa",
            "tags": TAGS,
        }
    ],
    tags=TAGS,
)
aws.appautoscaling.Target(
    f"{NAME}-target",
    service_namespace="ec2",
    scalable_dimension="ec2:spot-fleet-request:TargetCapacity",
    resource_id=fleet.id.apply(lambda id_: f"spot-fleet-request/{id_}"),
    min_capacity=1,
    max_capacity=10,
    tags=TAGS,
)

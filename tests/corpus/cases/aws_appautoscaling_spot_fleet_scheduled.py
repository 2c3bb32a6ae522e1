"""A Spot Fleet of 2 x g5.12xlarge whose scalable target allows 4 (16 A10Gs, at the dev limit),
and a scheduled action that raises its max to 12 for the nightly batch: 48 A10Gs."""

import pulumi
import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

fleet = aws.ec2.SpotFleetRequest(
    NAME,
    iam_fleet_role="arn:aws:iam::123456789012:role/aws-ec2-spot-fleet-tagging-role",
    target_capacity=2,
    allocation_strategy="capacityOptimized",
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
target = aws.appautoscaling.Target(
    f"{NAME}-target",
    service_namespace="ec2",
    scalable_dimension="ec2:spot-fleet-request:TargetCapacity",
    resource_id=pulumi.Output.concat("spot-fleet-request/", fleet.id),
    min_capacity=2,
    max_capacity=4,
    tags=TAGS,
)
aws.appautoscaling.ScheduledAction(
    f"{NAME}-nightly",
    service_namespace=target.service_namespace,
    scalable_dimension=target.scalable_dimension,
    resource_id=target.resource_id,
    schedule="cron(0 22 * * ? *)",
    timezone="Europe/Berlin",
    scalable_target_action={"min_capacity": 2, "max_capacity": 12},
)

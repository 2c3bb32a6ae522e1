"""A capacity reservation fleet through the aws-native provider: 4 units of p4d.24xlarge held
whether used or not, 32 A100s, of a type gpufleet has no reader for."""

import pulumi

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

pulumi.CustomResource(
    "aws-native:ec2:CapacityReservationFleet",
    NAME,
    {
        "allocationStrategy": "prioritized",
        "instanceMatchCriteria": "open",
        "tenancy": "default",
        "totalTargetCapacity": 4,
        "instanceTypeSpecifications": [
            {
                "instanceType": "p4d.24xlarge",
                "instancePlatform": "Linux/UNIX",
                "availabilityZone": "us-east-1a",
                "weight": 1,
                "priority": 1,
            }
        ],
    },
)

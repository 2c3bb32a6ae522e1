"""Five Spot Fleet requests of 3 x g5.12xlarge (12 A10Gs each), their launch specifications
tagged: each within the fleet limit, 60 GPUs in all, over a stack limit of 48."""

import pulumi_aws as aws
from _tags import TAGS

EXPECT = {"gpu-fleet-size"}
POLICY_CONFIG = {
    "gpu-fleet-size": {"maxGpusPerStack": 48},
    "gpu-budget": {"monthlyBudgetUsd": 100000},
}

for i in range(5):
    aws.ec2.SpotFleetRequest(
        f"batch-{i}",
        iam_fleet_role="arn:aws:iam::123456789012:role/aws-ec2-spot-fleet-tagging-role",
        target_capacity=3,
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

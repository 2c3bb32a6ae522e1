"""Honest: a Spot Fleet request of 2 x g5.xlarge from a launch template that tags its
instances."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g5.xlarge",
    metadata_options={"http_tokens": "required"},
    tag_specifications=[
        {"resource_type": "instance", "tags": TAGS},
        {"resource_type": "spot-instances-request", "tags": TAGS},
    ],
    tags=TAGS,
)
aws.ec2.SpotFleetRequest(
    NAME,
    iam_fleet_role="arn:aws:iam::123456789012:role/aws-ec2-spot-fleet-tagging-role",
    target_capacity=2,
    allocation_strategy="priceCapacityOptimized",
    launch_template_configs=[
        {
            "launch_template_specification": {
                "id": template.id,
                "version": template.latest_version.apply(str),
            },
            "overrides": [{"subnet_id": "subnet-0aaaaaaaaaaaaaaaa"}],
        }
    ],
    tags=TAGS,
)

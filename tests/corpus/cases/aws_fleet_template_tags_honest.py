"""Honest: an EC2 Fleet of 2 x g5.xlarge whose launch template tags its instances (and the
fleet carries the tags too)."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    name="g5-fleet",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g5.xlarge",
    metadata_options={"http_tokens": "required"},
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
)
aws.ec2.Fleet(
    NAME,
    type="maintain",
    launch_template_configs=[
        {
            "launch_template_specification": {
                "launch_template_name": "g5-fleet",
                "version": "$Default",
            }
        }
    ],
    target_capacity_specification={
        "default_target_capacity_type": "on-demand",
        "total_target_capacity": 2,
    },
    tags=TAGS,
    opts=__import__("pulumi").ResourceOptions(depends_on=[template]),
)

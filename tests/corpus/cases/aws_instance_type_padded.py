"""A launch template of ' p5.48xlarge ' (padded) behind a group of up to 3: 24 H100s."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget", "gpu-fleet-size"}

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    instance_type=" p5.48xlarge ",
    metadata_options={"http_tokens": "required"},
    tags=TAGS,
)
aws.autoscaling.Group(
    NAME,
    max_size=3,
    min_size=0,
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": template.id, "version": "$Latest"},
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
)

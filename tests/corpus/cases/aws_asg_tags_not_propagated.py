"""A group whose cost tags stay on the group: propagate_at_launch False, so its GPU instances
launch untagged."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget", "required-tags"}

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    instance_type="g6.xlarge",
    metadata_options={"http_tokens": "required"},
)
aws.autoscaling.Group(
    NAME,
    max_size=1,
    min_size=0,
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": template.id, "version": "$Latest"},
    tags=[{"key": k, "value": v, "propagate_at_launch": False} for k, v in TAGS.items()],
)

"""Honest: a CPU group (c6i.2xlarge, its launch template in the stack) whose max size is
undecryptable secret config. Its size is not known offline, but it launches no GPU machine
whatever its size: no GPU capacity, nothing to block."""

import pulumi
import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

template = aws.ec2.LaunchTemplate(
    f"{NAME}-template",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="c6i.2xlarge",
    metadata_options={"http_tokens": "required"},
    tags=TAGS,
)
aws.autoscaling.Group(
    NAME,
    min_size=0,
    max_size=pulumi.Config().require_secret_int("cpuMaxNodes"),
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": template.id, "version": "$Latest"},
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
)

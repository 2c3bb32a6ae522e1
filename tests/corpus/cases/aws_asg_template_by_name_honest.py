"""Honest: a group of at most 2 x g5.xlarge that names its launch template (in this stack) by
name, as the console and many modules do, not by an Output: the template tags its instances."""

import pulumi
import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    name="g5-workers",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g5.xlarge",
    metadata_options={"http_tokens": "required"},
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
)
aws.autoscaling.Group(
    NAME,
    min_size=1,
    max_size=2,
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"name": "g5-workers", "version": "$Latest"},
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
    opts=pulumi.ResourceOptions(depends_on=[template]),
)

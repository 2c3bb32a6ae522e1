"""Honest: a group of at most 2 x g5.12xlarge with a Running warm pool of one more beside a
full group: 3 instances, 12 A10Gs, within the dev fleet limit (16)."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g5.12xlarge",
    metadata_options={"http_tokens": "required"},
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
)
aws.autoscaling.Group(
    NAME,
    min_size=0,
    max_size=2,
    desired_capacity=0,
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": template.id, "version": "$Latest"},
    warm_pool={"pool_state": "Running", "min_size": 1, "max_group_prepared_capacity": 2},
    tags=[{"key": k, "value": v, "propagate_at_launch": False} for k, v in TAGS.items()],
)

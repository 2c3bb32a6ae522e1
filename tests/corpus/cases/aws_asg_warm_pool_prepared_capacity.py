"""A group of at most 2 x g5.12xlarge (8 A10Gs) whose Running warm pool keeps its prepared
capacity at 6 instances: 24 A10Gs running, whatever its own max says."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

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
    min_size=1,
    max_size=2,
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": template.id, "version": "$Latest"},
    warm_pool={"pool_state": "Running", "max_group_prepared_capacity": 6},
    tags=[{"key": k, "value": v, "propagate_at_launch": False} for k, v in TAGS.items()],
)

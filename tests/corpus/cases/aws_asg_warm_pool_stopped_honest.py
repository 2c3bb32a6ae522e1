"""Honest: a group of at most 2 x g5.12xlarge (8 A10Gs) with a Stopped warm pool of 2: stopped
instances bill their volumes, not their GPUs."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g5.12xlarge",
    metadata_options={"http_tokens": "required", "http_endpoint": "enabled"},
    tag_specifications=[
        {"resource_type": "instance", "tags": TAGS},
        {"resource_type": "volume", "tags": TAGS},
    ],
    tags=TAGS,
)
aws.autoscaling.Group(
    NAME,
    min_size=0,
    max_size=2,
    desired_capacity=0,
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": template.id, "version": template.latest_version.apply(str)},
    warm_pool={
        "pool_state": "Stopped",
        "min_size": 2,
        "instance_reuse_policy": {"reuse_on_scale_in": True},
    },
    tags=[
        *({"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()),
        # What runs it (at zero until asked) declares its expected use: priced, not unknown.
        {"key": "expected-minutes", "value": "600", "propagate_at_launch": False},
    ],
)

"""An Auto Scaling group whose launch template tags volumes and network interfaces but not
instances, and whose own tags are not propagated: its g5 instances launch untagged."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget", "required-tags"}

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g5.2xlarge",
    metadata_options={"http_tokens": "required"},
    tag_specifications=[
        {"resource_type": "volume", "tags": TAGS},
        {"resource_type": "network-interface", "tags": TAGS},
    ],
    tags=TAGS,
)
aws.autoscaling.Group(
    NAME,
    min_size=0,
    max_size=2,
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": template.id, "version": "$Latest"},
    tags=[{"key": k, "value": v, "propagate_at_launch": False} for k, v in TAGS.items()],
)

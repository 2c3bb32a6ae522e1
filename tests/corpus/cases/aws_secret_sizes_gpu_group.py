"""A group whose machine type and max size are secrets (pulumi.Output.secret): g5.12xlarge, up
to 6: 24 A10Gs. A secret is known to the engine, so it is judged, not passed."""

import pulumi
import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget", "gpu-fleet-size"}

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type=pulumi.Output.secret("g5.12xlarge"),
    metadata_options={"http_tokens": "required"},
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
)
aws.autoscaling.Group(
    NAME,
    min_size=0,
    max_size=pulumi.Output.secret(6),
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": template.id, "version": "$Latest"},
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
)

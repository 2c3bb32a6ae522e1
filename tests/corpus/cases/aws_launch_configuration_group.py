"""An Auto Scaling group of up to 4 from a launch configuration of p4d.24xlarge: 32 A100s."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget", "gpu-fleet-size"}

config = aws.ec2.LaunchConfiguration(
    f"{NAME}-lc",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="p4d.24xlarge",
    metadata_options={"http_tokens": "required"},
)
aws.autoscaling.Group(
    NAME,
    max_size=4,
    min_size=0,
    launch_configuration=config.name,
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
)

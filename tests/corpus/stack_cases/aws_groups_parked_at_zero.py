"""Twelve Auto Scaling groups parked at zero, each of one g5.48xlarge (8 A10Gs) at most: no group
is above the dev fleet limit (16) and the expected cost is $0 (each declares no use: expected
minutes 0), but together they may hold 96 GPUs. The stack limit counts every group at its max
size."""

import pulumi_aws as aws
from _tags import TAGS

EXPECT = {"gpu-fleet-size"}
POLICY_CONFIG = {"gpu-fleet-size": {"maxGpusPerStack": 64}}

template = aws.ec2.LaunchTemplate(
    "parked-lt",
    instance_type="g5.48xlarge",
    metadata_options={"http_tokens": "required"},
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
)
for i in range(12):
    aws.autoscaling.Group(
        f"parked-{i}",
        min_size=0,
        max_size=1,
        desired_capacity=0,
        vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
        launch_template={"id": template.id, "version": "$Latest"},
        tags=[
            {"key": k, "value": v, "propagate_at_launch": False}
            for k, v in {**TAGS, "expected-minutes": "0"}.items()
        ],
    )

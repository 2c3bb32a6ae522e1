"""Groups parked at zero under a worst-case cap: their expected cost is $0, within the budget,
but every one at its max size costs more than the cap the policy config sets."""

import pulumi_aws as aws
from _tags import TAGS

EXPECT = {"gpu-budget"}
POLICY_CONFIG = {"gpu-budget": {"worstCaseMonthlyUsd": 20000}}

template = aws.ec2.LaunchTemplate(
    "idle-lt",
    instance_type="g5.12xlarge",
    metadata_options={"http_tokens": "required"},
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
)
for i in range(4):
    aws.autoscaling.Group(
        f"idle-{i}",
        min_size=0,
        max_size=2,
        desired_capacity=0,
        vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
        launch_template={"id": template.id, "version": "$Latest"},
        tags=[{"key": k, "value": v, "propagate_at_launch": False} for k, v in TAGS.items()],
    )

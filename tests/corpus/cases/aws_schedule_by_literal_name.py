"""A group at most 2 x p5.48xlarge, and a scheduled action naming it by its literal name (no
Output, so no dependency) that raises it to 3: 24 GPUs, and (its min raised, never lowered)
3 x p5.48xlarge all week, priced: the stack's budget finding, not one of its own."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    instance_type="p5.48xlarge",
    metadata_options={"http_tokens": "required"},
    tags=TAGS,
)
aws.autoscaling.Group(
    NAME,
    name="gpu-asg-by-name",
    max_size=2,
    min_size=0,
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": template.id, "version": "$Latest"},
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
)
aws.autoscaling.Schedule(
    f"{NAME}-burst",
    scheduled_action_name="burst",
    autoscaling_group_name="gpu-asg-by-name",
    min_size=3,
    max_size=3,
    desired_capacity=3,
    recurrence="0 9 * * 1",
)

"""Honest: a capacity reservation of 2 x p4d.24xlarge (16 A100s) and a group of at most 2
p4d.24xlarge whose launch template targets it: the group runs in the reservation, so the stack
holds 16 GPUs, at its limit, not 32. The budget is raised: only the count is judged."""

import pulumi_aws as aws
from _tags import TAGS

EXPECT: set[str] = set()
POLICY_CONFIG = {
    "gpu-fleet-size": {"maxGpusPerStack": 16},
    "gpu-budget": {"monthlyBudgetUsd": 100000},
}

reservation = aws.ec2.CapacityReservation(
    "p4d-hold",
    instance_type="p4d.24xlarge",
    instance_count=2,
    instance_platform="Linux/UNIX",
    availability_zone="us-east-1a",
    instance_match_criteria="targeted",
    end_date_type="limited",
    end_date="2026-12-31T00:00:00Z",
    tags=TAGS,
)
template = aws.ec2.LaunchTemplate(
    "p4d-lt",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="p4d.24xlarge",
    metadata_options={"http_tokens": "required"},
    capacity_reservation_specification={
        "capacity_reservation_target": {"capacity_reservation_id": reservation.id}
    },
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
)
aws.autoscaling.Group(
    "p4d-group",
    min_size=0,
    max_size=2,
    availability_zones=["us-east-1a"],
    launch_template={"id": template.id, "version": "$Latest"},
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
)

"""An Auto Scaling group that follows a ``Scaling`` (``components.scaling``): what its desired
size starts at, what later ``pulumi up`` runs leave alone, its tags for the cost engine, and
for a schedule the scheduled actions at the start and end of each weekly run."""

from __future__ import annotations

import pulumi
import pulumi_aws as aws

from gpufleet.components.scaling import Scaling, cron_at


def group_tags(tags: dict[str, str], scaling: Scaling) -> list[aws.autoscaling.GroupTagArgs]:
    return [
        aws.autoscaling.GroupTagArgs(key=k, value=v, propagate_at_launch=False)
        for k, v in {**tags, **scaling.expected_tags()}.items()
    ]


def group_options(parent: pulumi.Resource, scaling: Scaling) -> pulumi.ResourceOptions:
    """A group that scales keeps the size its scaling set: ``pulumi up`` does not reset it
    (a running job is not scaled away)."""
    if scaling.scales:
        return pulumi.ResourceOptions(parent=parent, ignore_changes=["desired_capacity"])
    return pulumi.ResourceOptions(parent=parent)


def scale_group(
    name: str, asg: aws.autoscaling.Group, size: int, scaling: Scaling, parent: pulumi.Resource
) -> None:
    opts = pulumi.ResourceOptions(parent=parent)
    for index, run in enumerate(scaling.weekly_runs()):
        for edge, minute, desired in (("start", run.start, size), ("end", run.end, 0)):
            action = f"{name}-run-{index}-{edge}"
            aws.autoscaling.Schedule(
                action,
                scheduled_action_name=action,
                autoscaling_group_name=asg.name,
                recurrence=cron_at(minute),
                time_zone=scaling.time_zone,
                desired_capacity=desired,
                # -1: leave the min and max size as they are (the provider's default is 0).
                min_size=-1,
                max_size=-1,
                opts=opts,
            )

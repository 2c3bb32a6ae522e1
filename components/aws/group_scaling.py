"""An Auto Scaling group that follows a ``Scaling`` (``components.scaling``): what its desired
size starts at, what later ``pulumi up`` runs leave alone, its tags for the cost engine, for a
schedule the scheduled actions at the start and end of each weekly run, and for a burst on
load the step scaling policies its base's CPU alarms drive (``BUSY_CPU`` and ``IDLE_CPU``:
apart, so one more instance taking load off a busy base does not make it idle at once)."""

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


# The base's average CPU (%) over a few minutes that adds a burst instance, and that removes one.
BUSY_CPU = 70.0
IDLE_CPU = 30.0
BUSY_MINUTES = 5
IDLE_MINUTES = 15
# EC2 reports CPU every 5 minutes without detailed monitoring: one alarm period each.
PERIOD_SECONDS = 300
# A GPU instance boots and loads its model for minutes before its load counts.
WARMUP_SECONDS = 600


def follow_base_load(
    name: str,
    asg: aws.autoscaling.Group,
    base_group_name: pulumi.Input[str],
    step: int,
    tags: dict[str, str],
    parent: pulumi.Resource,
) -> None:
    """Step scaling on the always-on base group's average CPU: busy, ``step`` more capacity
    units (one instance); idle, ``step`` fewer. The base has instances all month, so its
    metric exists when the burst is at zero, which the burst's own would not."""
    opts = pulumi.ResourceOptions(parent=parent)
    for edge, change, comparison, threshold, minutes in (
        ("busy", step, "GreaterThanThreshold", BUSY_CPU, BUSY_MINUTES),
        ("idle", -step, "LessThanThreshold", IDLE_CPU, IDLE_MINUTES),
    ):
        bound = (
            aws.autoscaling.PolicyStepAdjustmentArgs(
                scaling_adjustment=change, metric_interval_lower_bound="0"
            )
            if change > 0
            else aws.autoscaling.PolicyStepAdjustmentArgs(
                scaling_adjustment=change, metric_interval_upper_bound="0"
            )
        )
        policy = aws.autoscaling.Policy(
            f"{name}-base-{edge}",
            autoscaling_group_name=asg.name,
            policy_type="StepScaling",
            adjustment_type="ChangeInCapacity",
            metric_aggregation_type="Average",
            estimated_instance_warmup=WARMUP_SECONDS,
            step_adjustments=[bound],
            opts=opts,
        )
        aws.cloudwatch.MetricAlarm(
            f"{name}-base-{edge}",
            alarm_description=f"gpufleet: the base of {name} is {edge}",
            namespace="AWS/EC2",
            metric_name="CPUUtilization",
            dimensions={"AutoScalingGroupName": base_group_name},
            statistic="Average",
            period=PERIOD_SECONDS,
            evaluation_periods=minutes * 60 // PERIOD_SECONDS,
            comparison_operator=comparison,
            threshold=threshold,
            alarm_actions=[policy.arn],
            tags=tags,
            opts=opts,
        )

"""A managed instance group that follows a ``Scaling`` (``components.scaling``): its
autoscaler, between zero and the group's size.

- ``on_request``: the autoscaler stays off: its bounds say what the group may hold, its
  description the expected use. A run (``gpufleet scale``) resizes the group and schedules its
  end in the group's guard (``run_guard``), which resizes it to zero.
- ``schedule``: on, with a scaling schedule per weekly run that holds the group at its size
  for the run (a cron and a duration in the schedule's time zone); outside the runs the
  autoscaler scales in on GCP's default signal (average CPU 60%).

A serving burst (``burst_autoscaler``) is not a ``Scaling`` of its own group: it is the second
version of its base's group, whose autoscaler runs between the base's size and the base plus
the burst on the group's average CPU (one target, ``BURST_CPU_TARGET``, where AWS and Azure
use a pair of alarms on the base's CPU).

The plan's expected use is in the autoscaler's description (``expected-minutes=...``), not on
the instance template: a template cannot change without replacing it, and a replaced template
makes the group recreate running VMs.
"""

from __future__ import annotations

import pulumi
import pulumi_gcp as gcp

from gpufleet import tag_keys
from gpufleet.components.scaling import GCP_MIN_SCHEDULE_SECONDS, Scaling, cron_at

# How long a new VM is left alone before its load counts.
COOLDOWN_SECONDS = 300
# The group's average CPU a burst keeps it at: more VMs above, fewer below.
BURST_CPU_TARGET = 0.7


def region_autoscaler(
    name: str,
    group_id: pulumi.Input[str],
    size: int,
    scaling: Scaling,
    *,
    region: str,
    project: str | None,
    parent: pulumi.Resource,
) -> gcp.compute.RegionAutoscaler:
    return gcp.compute.RegionAutoscaler(
        f"{name}-autoscaler",
        project=project,
        region=region,
        target=group_id,
        description=tag_keys.description_with("gpufleet", scaling.expected_tags()),
        autoscaling_policy=autoscaling_policy(size, scaling),
        opts=pulumi.ResourceOptions(parent=parent),
    )


def autoscaling_policy(
    size: int, scaling: Scaling
) -> gcp.compute.RegionAutoscalerAutoscalingPolicyArgs:
    return gcp.compute.RegionAutoscalerAutoscalingPolicyArgs(
        min_replicas=0,
        max_replicas=size,
        cooldown_period=COOLDOWN_SECONDS,
        mode="OFF" if scaling.mode == "on_request" else "ON",
        scaling_schedules=[
            gcp.compute.RegionAutoscalerAutoscalingPolicyScalingScheduleArgs(
                name=f"run-{index}",
                schedule=cron_at(run.start),
                duration_sec=max(run.minutes * 60, GCP_MIN_SCHEDULE_SECONDS),
                min_required_replicas=size,
                time_zone=scaling.time_zone,
                description="a weekly run of the workload's schedule (gpufleet)",
            )
            for index, run in enumerate(scaling.weekly_runs())
        ],
    )


def burst_autoscaler(
    name: str,
    group_id: pulumi.Input[str],
    base: int,
    burst: int,
    expected_hours: float,
    *,
    region: str,
    project: str | None,
    parent: pulumi.Resource,
) -> gcp.compute.RegionAutoscaler:
    """The autoscaler of a group with a burst version: never below the base's size, up to
    ``burst`` more on load; the burst's expected use declared for the cost engine."""
    minutes = round(expected_hours * 60)
    return gcp.compute.RegionAutoscaler(
        f"{name}-autoscaler",
        project=project,
        region=region,
        target=group_id,
        description=tag_keys.description_with(
            "gpufleet", {tag_keys.EXPECTED_MINUTES: str(minutes)}
        ),
        autoscaling_policy=gcp.compute.RegionAutoscalerAutoscalingPolicyArgs(
            min_replicas=base,
            max_replicas=base + burst,
            cooldown_period=COOLDOWN_SECONDS,
            mode="ON",
            cpu_utilization=gcp.compute.RegionAutoscalerAutoscalingPolicyCpuUtilizationArgs(
                target=BURST_CPU_TARGET
            ),
        ),
        opts=pulumi.ResourceOptions(parent=parent),
    )

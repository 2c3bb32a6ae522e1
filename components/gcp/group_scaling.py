"""A managed instance group that follows a ``Scaling`` (``components.scaling``): its
autoscaler, between zero and the group's size.

- ``on_request``: the autoscaler is off; a run sets the size (``gpufleet scale`` turns it on
  with a scaling schedule that ends the run), and the bounds say what the group may hold.
- ``autoscale``: on, scaling on average CPU.
- ``schedule``: on, with a scaling schedule per weekly run that holds the group at its size
  for the run (a cron and a duration in the schedule's time zone); zero outside the runs.
"""

from __future__ import annotations

import pulumi
import pulumi_gcp as gcp

from gpufleet.components.scaling import Scaling, cron_at

# GCP's shortest scaling schedule, and how long a new VM is left alone before its load counts.
MIN_SCHEDULE_SECONDS = 300
COOLDOWN_SECONDS = 300


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
        cpu_utilization=gcp.compute.RegionAutoscalerAutoscalingPolicyCpuUtilizationArgs(
            target=scaling.target_cpu_percent / 100
        ),
        scaling_schedules=[
            gcp.compute.RegionAutoscalerAutoscalingPolicyScalingScheduleArgs(
                name=f"run-{index}",
                schedule=cron_at(run.start),
                duration_sec=max(run.minutes * 60, MIN_SCHEDULE_SECONDS),
                min_required_replicas=size,
                time_zone=scaling.time_zone,
                description="a weekly run of the workload's schedule (gpufleet)",
            )
            for index, run in enumerate(scaling.weekly_runs())
        ],
    )

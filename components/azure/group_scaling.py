"""A scale set that follows a ``Scaling`` (``components.scaling``): its Azure Monitor autoscale
setting, between zero and the set's size.

- ``on_request``: the setting is disabled; a run sets the capacity (``gpufleet scale`` enables
  it with a profile that ends the run), and its bounds say what the set may hold.
- ``on_load`` (a serving burst): enabled, one profile from zero to the set's size whose
  rules read the always-on base set's CPU (another resource's metric, which Azure allows):
  busy, one VM more; idle, one fewer.
- ``schedule``: enabled, with recurring profiles: one at each start time of the week's runs
  (capacity = the set's size) and one at each end (capacity 0). A recurring profile stays in
  effect until the next one starts, which is how Azure runs a weekly schedule. Azure names
  time zones the Windows way, so the schedule's IANA zone is translated (CLDR's table, as
  tzlocal ships it).
"""

from __future__ import annotations

from collections import defaultdict

import pulumi
import pulumi_azure_native as azure

from gpufleet.components.scaling import AZURE_MAX_PROFILES, Scaling
from gpufleet.planner.schedules import MINUTES_PER_DAY, day_at, windows_time_zone

# Azure's day names in a recurrence, by gpufleet's day names.
_AZURE_DAYS = {
    "mon": "Monday",
    "tue": "Tuesday",
    "wed": "Wednesday",
    "thu": "Thursday",
    "fri": "Friday",
    "sat": "Saturday",
    "sun": "Sunday",
}


def autoscale_setting(
    name: str,
    scale_set_id: pulumi.Input[str],
    size: int,
    scaling: Scaling,
    *,
    base_scale_set_id: pulumi.Input[str] | None = None,
    resource_group_name: pulumi.Input[str],
    location: str,
    tags: dict[str, str],
    parent: pulumi.Resource,
) -> azure.monitor.AutoscaleSetting:
    return azure.monitor.AutoscaleSetting(
        f"{name}-autoscale",
        resource_group_name=resource_group_name,
        location=location,
        target_resource_uri=scale_set_id,
        enabled=scaling.mode != "on_request",
        profiles=profiles(size, scaling, base_scale_set_id),
        tags=tags,
        # `gpufleet scale` enables a setting on request with a profile that ends the run:
        # later `pulumi up` runs leave a running job and its end alone.
        opts=pulumi.ResourceOptions(
            parent=parent,
            ignore_changes=["enabled", "profiles"] if scaling.mode == "on_request" else None,
        ),
    )


def profiles(
    size: int, scaling: Scaling, base_scale_set_id: pulumi.Input[str] | None = None
) -> list[azure.monitor.AutoscaleProfileArgs]:
    if scaling.mode == "schedule":
        return _schedule_profiles(size, scaling)
    rules = []
    if scaling.mode == "on_load" and base_scale_set_id is not None:
        rules = [
            _base_load_rule(
                base_scale_set_id,
                azure.monitor.ComparisonOperationType.GREATER_THAN,
                BUSY_CPU,
                BUSY_WINDOW,
                azure.monitor.ScaleDirection.INCREASE,
            ),
            _base_load_rule(
                base_scale_set_id,
                azure.monitor.ComparisonOperationType.LESS_THAN,
                IDLE_CPU,
                IDLE_WINDOW,
                azure.monitor.ScaleDirection.DECREASE,
            ),
        ]
    return [
        azure.monitor.AutoscaleProfileArgs(
            name="default", capacity=_capacity(0, size, 0), rules=rules
        )
    ]


# The base's average CPU (%) over a window that adds a burst VM, and that removes one; apart,
# so one more VM taking load off a busy base does not make it idle at once.
BUSY_CPU, BUSY_WINDOW = 70.0, "PT5M"
IDLE_CPU, IDLE_WINDOW = 30.0, "PT15M"


def _base_load_rule(
    base_scale_set_id: pulumi.Input[str],
    operator: azure.monitor.ComparisonOperationType,
    threshold: float,
    window: str,
    direction: azure.monitor.ScaleDirection,
) -> azure.monitor.ScaleRuleArgs:
    """One VM more (or fewer) when the always-on base's average CPU is past ``threshold``:
    the base has VMs all month, so its metric exists when the burst is at zero."""
    return azure.monitor.ScaleRuleArgs(
        metric_trigger=azure.monitor.MetricTriggerArgs(
            metric_name="Percentage CPU",
            metric_namespace="microsoft.compute/virtualmachinescalesets",
            metric_resource_uri=base_scale_set_id,
            time_grain="PT1M",
            statistic=azure.monitor.MetricStatisticType.AVERAGE,
            time_window=window,
            time_aggregation=azure.monitor.TimeAggregationType.AVERAGE,
            operator=operator,
            threshold=threshold,
        ),
        scale_action=azure.monitor.ScaleActionArgs(
            direction=direction,
            type=azure.monitor.ScaleType.CHANGE_COUNT,
            value="1",
            cooldown="PT5M",
        ),
    )


def _capacity(least: int, most: int, default: int) -> azure.monitor.ScaleCapacityArgs:
    return azure.monitor.ScaleCapacityArgs(
        minimum=str(least), maximum=str(most), default=str(default)
    )


def _schedule_profiles(size: int, scaling: Scaling) -> list[azure.monitor.AutoscaleProfileArgs]:
    """A recurring profile per distinct start time (all the days it starts on) and per
    distinct end time."""
    zone = windows_time_zone(scaling.time_zone)
    edges: dict[tuple[str, int], list[str]] = defaultdict(list)
    for run in scaling.weekly_runs():
        for edge, minute in (("run", run.start), ("idle", run.end)):
            edges[(edge, minute % MINUTES_PER_DAY)].append(_AZURE_DAYS[day_at(minute)])
    if len(edges) > AZURE_MAX_PROFILES:
        raise ValueError(
            f"the schedule needs {len(edges)} autoscale profiles; Azure allows {AZURE_MAX_PROFILES}"
        )
    out = []
    for index, ((edge, minute_of_day), days) in enumerate(sorted(edges.items())):
        count = size if edge == "run" else 0
        hour, minute = divmod(minute_of_day, 60)
        out.append(
            azure.monitor.AutoscaleProfileArgs(
                name=f"{edge}-{index}",
                capacity=_capacity(count, count, count),
                rules=[],
                recurrence=azure.monitor.RecurrenceArgs(
                    frequency=azure.monitor.RecurrenceFrequency.WEEK,
                    schedule=azure.monitor.RecurrentScheduleArgs(
                        time_zone=zone,
                        days=sorted(set(days), key=list(_AZURE_DAYS.values()).index),
                        hours=[hour],
                        minutes=[minute],
                    ),
                ),
            )
        )
    return out

"""A run on an AWS Auto Scaling group (``aws:SpotFleet``, ``aws:PlacementCluster``).

The stack builds the group with min 0, max its size and a desired capacity ``pulumi up``
leaves alone. A run sets the desired capacity, after leaving its guard: a one-time scheduled
action (``GUARD_ACTION``, replaced by the next run) that sets the desired capacity to 0 when
the run's time is up. ``--to 0`` sets it to 0 now and deletes the guard. A fleet counts its
capacity in GPUs (its instance types weighted by their GPUs), a placement cluster in nodes.

The group is found by the workload's tags; of a workload's groups, the one that scales carries
the plan's expected use (``expected-minutes``), which a fixed base does not. Its tags keep the
month's ledger (``usage_ledger``): written once a run has started, or ``--to 0`` ended one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpufleet.runs.aws_access import autoscaling_client, aws_errors
from gpufleet.runs.cloud_error import CloudError, ambiguous, not_deployed
from gpufleet.runs.part_change import PartChange
from gpufleet.runs.run_duration import RunWindow
from gpufleet.runs.run_parts import PartRun
from gpufleet.runs.stack_target import StackTarget
from gpufleet.runs.workload_tags import carries, scales, tags_text, workload_tags

GUARD_ACTION = "gpufleet-scale-end"


@dataclass(frozen=True)
class AwsGroup:
    """The workload's group that scales, as found, and the client that found it."""

    client: Any
    group: dict[str, Any]

    @property
    def ledger_tags(self) -> dict[str, str]:
        return _tags(self.group)


def find_group(run: PartRun, target: StackTarget) -> AwsGroup:
    region = run.workload.region
    with aws_errors("autoscaling:DescribeAutoScalingGroups", f"Auto Scaling groups in {region}"):
        client = autoscaling_client(region)  # a profile that is not there fails here
    return AwsGroup(client, _scaling_group(client, run, target))


def scale_group(
    run: PartRun, window: RunWindow, found: AwsGroup, ledger: dict[str, str]
) -> PartChange:
    client, group = found.client, found.group
    name, arn = group["AutoScalingGroupName"], group["AutoScalingGroupARN"]
    per_instance = run.workload.gpus_per_instance if run.group == "aws_group_in_gpus" else 1
    desired = run.instances * per_instance
    if window.until is not None:
        with aws_errors("autoscaling:PutScheduledUpdateGroupAction", arn):
            client.put_scheduled_update_group_action(
                AutoScalingGroupName=name,
                ScheduledActionName=GUARD_ACTION,
                StartTime=window.until,
                DesiredCapacity=0,
            )
        _set_desired(client, name, arn, desired)
        try:
            _write_ledger(client, name, arn, ledger)  # booked once it runs
        except CloudError as exc:
            raise exc.after(
                f"{name} runs {desired} until {_at(window)}, but the run is not in its ledger"
            ) from None
        guard = f"scheduled action {GUARD_ACTION} sets desired capacity 0 at {_at(window)}"
    else:
        _set_desired(client, name, arn, 0)
        removed = _delete_guard(client, name, arn)
        guard = f"scheduled action {GUARD_ACTION} {'deleted' if removed else 'not set'}"
        _write_ledger(client, name, arn, ledger)  # what it did not run, given back
    return PartChange(run.part.component, run.instances, (name,), guard)


def _write_ledger(client: Any, name: str, arn: str, ledger: dict[str, str]) -> None:
    tags = [
        {
            "ResourceId": name,
            "ResourceType": "auto-scaling-group",
            "Key": key,
            "Value": value,
            "PropagateAtLaunch": False,
        }
        for key, value in ledger.items()
    ]
    if tags:
        with aws_errors("autoscaling:CreateOrUpdateTags", arn):
            client.create_or_update_tags(Tags=tags)


def _at(window: RunWindow) -> str:
    assert window.until is not None
    return window.until.strftime("%Y-%m-%d %H:%M UTC")


def _scaling_group(client: Any, run: PartRun, target: StackTarget) -> dict[str, Any]:
    tags = workload_tags(target.settings, run.workload)
    region = run.workload.region
    filters = [{"Name": f"tag:{key}", "Values": [value]} for key, value in tags.items()]
    with aws_errors("autoscaling:DescribeAutoScalingGroups", f"Auto Scaling groups in {region}"):
        pages = client.get_paginator("describe_auto_scaling_groups").paginate(Filters=filters)
        groups = [group for page in pages for group in page["AutoScalingGroups"]]
    found = [group for group in groups if carries(_tags(group), tags) and scales(_tags(group))]
    what = f"Auto Scaling group that scales, tagged {tags_text(tags)}"
    if not found:
        raise not_deployed("aws", what, region)
    if len(found) > 1:
        raise ambiguous("aws", "Auto Scaling groups", [g["AutoScalingGroupName"] for g in found])
    return found[0]


def _tags(group: dict[str, Any]) -> dict[str, str]:
    return {tag["Key"]: tag["Value"] for tag in group.get("Tags", [])}


def _set_desired(client: Any, name: str, arn: str, desired: int) -> None:
    with aws_errors("autoscaling:SetDesiredCapacity", arn):
        # Not honouring the cooldown: a run asked for this size now.
        client.set_desired_capacity(
            AutoScalingGroupName=name, DesiredCapacity=desired, HonorCooldown=False
        )


def _delete_guard(client: Any, name: str, arn: str) -> bool:
    with aws_errors("autoscaling:DescribeScheduledActions", arn):
        actions = client.describe_scheduled_actions(
            AutoScalingGroupName=name, ScheduledActionNames=[GUARD_ACTION]
        )["ScheduledUpdateGroupActions"]
    if not actions:
        return False
    with aws_errors("autoscaling:DeleteScheduledAction", arn):
        client.delete_scheduled_action(AutoScalingGroupName=name, ScheduledActionName=GUARD_ACTION)
    return True

"""A run on a GCP managed instance group (``gcp:SpotGroup``).

The stack builds a regional group and an autoscaler from 0 to the group's size: off for work
on request, on with weekly scaling schedules for work on a schedule.

- On request, a run resizes the group and first puts a task in the group's guard queue
  (``components/gcp/run_guard.py``), scheduled at the run's end: the queue then resizes the
  group to 0, whatever its VMs are doing, even if nobody comes back. A new run replaces the
  last one's guard; ``--to 0`` resizes to 0 and removes the guard.
- On a schedule, a run gives the autoscaler a one-off scaling schedule (``RUN_SCHEDULE``: a
  cron of this UTC minute with its year, so it fires once; ``min_required_replicas`` N for the
  run's duration) beside the weekly ones; at its end the group follows its schedule again (and
  the autoscaler's CPU signal, as at the end of a weekly run). ``--to 0`` removes it.

The group's VMs carry the workload's labels through its instance template (the group itself
takes none): the template is found by its labels, the group by its template, the autoscaler
by its target. The whole autoscaler is written back (``update``): a merge patch cannot remove
one entry of the schedules map. The month's ledger (``usage_ledger``) is words of its
description, beside the plan's use: written once a run has started, or ``--to 0`` ended one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from gpufleet.components.gcp.guard_target import queue_name, resize_url
from gpufleet.runs.cloud_error import CloudError, ambiguous, not_deployed
from gpufleet.runs.gcp_access import (
    GcpAccess,
    compute_v1,
    gcp_access,
    gcp_errors,
    label_filter,
    name_of,
    path_of,
    tasks_v2,
    wait,
)
from gpufleet.runs.part_change import PartChange
from gpufleet.runs.run_duration import RunWindow
from gpufleet.runs.run_parts import PartRun
from gpufleet.runs.stack_target import StackTarget
from gpufleet.runs.workload_tags import carries, tags_text, workload_labels

RUN_SCHEDULE = "gpufleet-run"


@dataclass(frozen=True)
class GcpGroup:
    """The workload's group that scales and its autoscaler, whose description keeps the
    month's ledger (the group takes no labels)."""

    access: GcpAccess
    region: str
    group: compute_v1.InstanceGroupManager
    autoscaler: compute_v1.Autoscaler

    @property
    def ledger_tags(self) -> dict[str, str]:
        return described(self.autoscaler.description)


def described(description: str | None) -> dict[str, str]:
    """The ``key=value`` words of a description (the plan's use, a run's ledger)."""
    words = (description or "").split()
    return dict(word.split("=", 1) for word in words if "=" in word)


def with_ledger(description: str | None, ledger: dict[str, str]) -> str:
    """A description with its ledger words replaced by ``ledger``'s."""
    kept = [w for w in (description or "").split() if w.split("=", 1)[0] not in ledger]
    return " ".join([*kept, *(f"{key}={value}" for key, value in ledger.items())])


def find_group(run: PartRun, target: StackTarget) -> GcpGroup:
    access = gcp_access(target.site.gcp().project)
    region = run.workload.region
    labels = workload_labels(target.settings, run.workload)
    return GcpGroup(access, region, *_scaling_group(access, region, labels))


def scale_group(
    run: PartRun, window: RunWindow, found: GcpGroup, ledger: dict[str, str]
) -> PartChange:
    if run.part.scaling == "on_request":
        return _run_on_request(found, run, window, ledger)
    return _run_on_schedule(found, run, window, ledger)


def _write_ledger(found: GcpGroup, ledger: dict[str, str]) -> None:
    autoscaler = found.autoscaler
    autoscaler.description = with_ledger(autoscaler.description, ledger)
    _update(found.access, found.region, autoscaler)


def _run_on_request(
    found: GcpGroup, run: PartRun, window: RunWindow, ledger: dict[str, str]
) -> PartChange:
    access, region, group = found.access, found.region, found.group
    queue = f"projects/{access.project}/locations/{region}/queues/{queue_name(group.name)}"
    names = (group.name, queue_name(group.name))
    if window.until is not None:
        end = window.until.strftime("%Y-%m-%d %H:%M UTC")
        guard = _schedule_guard(access, queue, group, window.until)
        try:
            _drop_guards(access, queue, keep=guard)
        except CloudError as exc:
            raise exc.after(
                f"nothing was resized; this run's guard is set ({name_of(guard)}, at {end}), "
                "and an earlier run's may still end the group sooner"
            ) from None
        try:
            _resize(access, region, group.name, run.instances)
        except CloudError as exc:
            raise exc.after(
                f"the run's guard stays: it resizes {group.name} to 0 at {end}"
            ) from None
        try:
            _write_ledger(found, ledger)  # booked once it runs
        except CloudError as exc:
            raise exc.after(
                f"{group.name} runs {run.instances} until {end}, but the run is not in its ledger"
            ) from None
        return PartChange(
            run.part.component,
            run.instances,
            names,
            f"Cloud Tasks task {name_of(guard)} resizes {group.name} to 0 at {end}",
        )
    try:
        _resize(access, region, group.name, 0)
    except CloudError as exc:
        raise exc.after(f"{group.name} keeps its VMs until its guard ends the run") from None
    try:
        dropped = _drop_guards(access, queue)
    except CloudError as exc:
        raise exc.after(
            f"{group.name} is at 0; its guard stays (at its time it resizes the group to 0 "
            "again, which changes nothing unless a run started since)"
        ) from None
    _write_ledger(found, ledger)  # what it did not run, given back
    return PartChange(
        run.part.component, 0, names, f"resized to 0; {dropped} guard task(s) removed"
    )


def _schedule_guard(
    access: GcpAccess, queue: str, group: compute_v1.InstanceGroupManager, until: datetime
) -> str:
    """A task in the group's guard queue at ``until``; its name. The queue decides the call
    (the group's resize to 0) and its credentials; the task says the same, for people."""
    task = tasks_v2.Task(
        schedule_time=until,
        http_request=tasks_v2.HttpRequest(
            url=resize_url(group.self_link, 0), http_method=tasks_v2.HttpMethod.POST
        ),
    )
    with gcp_errors("cloudtasks.tasks.create", queue):
        return access.tasks().create_task(parent=queue, task=task).name


def _drop_guards(access: GcpAccess, queue: str, keep: str | None = None) -> int:
    """Delete the queue's tasks (earlier runs' ends) but ``keep``; how many."""
    client = access.tasks()
    with gcp_errors("cloudtasks.tasks.list", queue):
        names = [task.name for task in client.list_tasks(parent=queue) if task.name != keep]
    for name in names:
        with gcp_errors("cloudtasks.tasks.delete", name):
            client.delete_task(name=name)
    return len(names)


def _run_on_schedule(
    found: GcpGroup, run: PartRun, window: RunWindow, ledger: dict[str, str]
) -> PartChange:
    group, autoscaler = found.group, found.autoscaler
    policy = autoscaler.autoscaling_policy
    policy.scaling_schedules.pop(RUN_SCHEDULE, None)
    if window.until is not None:
        policy.max_num_replicas = max(policy.max_num_replicas, run.instances)
        policy.scaling_schedules[RUN_SCHEDULE] = run_schedule(run.instances, window)
    # The run and its ledger in one write of the autoscaler.
    autoscaler.description = with_ledger(autoscaler.description, ledger)
    _update(found.access, found.region, autoscaler)
    names = (group.name, autoscaler.name)
    if window.until is not None:
        end = window.until.strftime("%Y-%m-%d %H:%M UTC")
        guard = f"scaling schedule {RUN_SCHEDULE} holds {run.instances} VM(s) until {end}"
        return PartChange(run.part.component, run.instances, names, guard)
    return PartChange(run.part.component, 0, names, f"scaling schedule {RUN_SCHEDULE} removed")


def _update(access: GcpAccess, region: str, autoscaler: compute_v1.Autoscaler) -> None:
    resource = f"projects/{access.project}/regions/{region}/autoscalers/{autoscaler.name}"
    with gcp_errors("compute.autoscalers.update", resource):
        wait(
            access,
            access.client(compute_v1.RegionAutoscalersClient).update_unary(
                request=compute_v1.UpdateRegionAutoscalerRequest(
                    project=access.project,
                    region=region,
                    autoscaler=autoscaler.name,
                    autoscaler_resource=autoscaler,
                )
            ),
        )


def run_schedule(instances: int, window: RunWindow) -> compute_v1.AutoscalingPolicyScalingSchedule:
    """A schedule that starts once, this UTC minute, and ends when the run does."""
    assert window.until is not None
    start = window.start.replace(second=0, microsecond=0)
    return compute_v1.AutoscalingPolicyScalingSchedule(
        schedule=once_at(start),
        time_zone="UTC",
        duration_sec=math.ceil((window.until - start).total_seconds()),
        min_required_replicas=instances,
        description=f"gpufleet scale: a run until {window.until.isoformat(timespec='seconds')}",
    )


def once_at(moment: datetime) -> str:
    """The extended cron (minute hour day month day-of-week year) that fires once."""
    return f"{moment.minute} {moment.hour} {moment.day} {moment.month} * {moment.year}"


def _scaling_group(
    access: GcpAccess, region: str, labels: dict[str, str]
) -> tuple[compute_v1.InstanceGroupManager, compute_v1.Autoscaler]:
    """The workload's regional group that scales, and its autoscaler: the group runs the
    instance template carrying the workload's labels, the autoscaler targets the group (a
    fixed group of the same workload has none)."""
    project = access.project
    where = f"projects/{project}/regions/{region}"
    templates = _labelled_templates(access, labels)
    with gcp_errors("compute.instanceGroupManagers.list", where):
        groups = [
            group
            for group in access.client(compute_v1.RegionInstanceGroupManagersClient).list(
                project=project, region=region
            )
            if _templates_of(group) & templates
        ]
    if not groups:
        what = f"managed instance group whose template carries labels {tags_text(labels)}"
        raise not_deployed("gcp", what, where)
    with gcp_errors("compute.autoscalers.list", where):
        autoscalers = {
            path_of(autoscaler.target): autoscaler
            for autoscaler in access.client(compute_v1.RegionAutoscalersClient).list(
                project=project, region=region
            )
        }
    scaled = [
        (g, autoscalers[path_of(g.self_link)])
        for g in groups
        if path_of(g.self_link) in autoscalers
    ]
    if not scaled:
        names = ", ".join(g.name for g in groups)
        raise CloudError("gcp", f"{names}: no autoscaler targets it; the group runs a fixed size")
    if len(scaled) > 1:
        raise ambiguous("gcp", "managed instance groups", [g.name for g, _ in scaled])
    return scaled[0]


def _labelled_templates(access: GcpAccess, labels: dict[str, str]) -> set[str]:
    """Names of the instance templates carrying every label. The listing is narrowed by the
    labels whose keys a filter can name; each template is checked against all."""
    listing = label_filter(labels)
    project = access.project
    with gcp_errors("compute.instanceTemplates.list", f"projects/{project}/global"):
        return {
            template.name
            for template in access.client(compute_v1.InstanceTemplatesClient).list(
                request=compute_v1.ListInstanceTemplatesRequest(project=project, filter=listing)
            )
            if carries(template.properties.labels, labels)
        }


def _templates_of(group: compute_v1.InstanceGroupManager) -> set[str]:
    links = [version.instance_template for version in group.versions]
    links.append(group.instance_template)
    return {name_of(link) for link in links if link}


def _resize(access: GcpAccess, region: str, group: str, size: int) -> None:
    resource = f"projects/{access.project}/regions/{region}/instanceGroupManagers/{group}"
    with gcp_errors("compute.instanceGroupManagers.update", resource):
        wait(
            access,
            access.client(compute_v1.RegionInstanceGroupManagersClient).resize_unary(
                project=access.project, region=region, instance_group_manager=group, size=size
            ),
        )

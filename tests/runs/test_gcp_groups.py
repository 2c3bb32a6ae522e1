"""``gpufleet scale`` on a GCP managed instance group, against a local HTTPS server speaking
the Compute Engine and Cloud Tasks REST APIs (tests/runs/gcp_compute_server.py), reached through
gcloud's endpoint overrides with a service account key whose signed tokens it checks: a group
on request resized after its guard task is set (and the guard, dispatched, ending it), ``--to
0``, failures that leave the guard, a schedule-mode group given a one-off scaling schedule
beside its weekly ones, a missing permission and missing credentials as one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from gpufleet import tag_keys
from gpufleet.components.gcp.guard_target import queue_name
from gpufleet.runs.gcp_groups import RUN_SCHEDULE, once_at
from tests.helpers import ROOT
from tests.runs.cloud_tasks_server import Queue
from tests.runs.conftest import Scale
from tests.runs.gcp_compute_server import ComputeApi
from tests.runs.stack_files import ENVIRONMENT, GCP_PROJECT, GCP_REGION, PROJECT


def labels(workload: str) -> dict[str, str]:
    return {
        tag_keys.PROJECT: PROJECT,
        tag_keys.ENVIRONMENT: ENVIRONMENT,
        tag_keys.WORKLOAD: workload,
        tag_keys.MANAGED_BY: tag_keys.MANAGED_BY_GPUFLEET,
        tag_keys.gcp_label_key(tag_keys.WORKLOAD_KIND): "batch",
    }


def policy(size: int, mode: str, schedules: dict[str, Any] | None = None) -> dict[str, Any]:
    """An autoscaling policy as the stack builds it (components/gcp/group_scaling.py)."""
    return {
        "minNumReplicas": 0,
        "maxNumReplicas": size,
        "coolDownPeriodSec": 300,
        "mode": mode,
        "cpuUtilization": {"utilizationTarget": 0.6},
        "scalingSchedules": schedules or {},
    }


WEEKLY = {
    "run-0": {
        "schedule": "0 2 * * 1",
        "durationSec": 21600,
        "minRequiredReplicas": 2,
        "timeZone": "UTC",
        "description": "a weekly run of the workload's schedule (gpufleet)",
    }
}


def autoscaler(api: ComputeApi, name: str) -> dict[str, Any]:
    """The autoscaler as stored; an empty map of schedules, which the API leaves out of what
    it sends, read as the empty map it is."""
    found = api.state.autoscalers[f"{name}-autoscaler"]
    found["autoscalingPolicy"].setdefault("scalingSchedules", {})
    return found


def group(api: ComputeApi, name: str) -> dict[str, Any]:
    return api.state.groups[f"{name}-group"]


def guard_queue(api: ComputeApi, name: str) -> Queue:
    return api.tasks.queues[api.tasks.queue_path(GCP_REGION, queue_name(f"{name}-group"))]


def on_request(api: ComputeApi, name: str, size: int = 3) -> None:
    """A group on request as the stack deploys it: its autoscaler off, its guard queue."""
    api.add_group(name, GCP_REGION, labels(name), policy=policy(size, "OFF"), guarded=True)


def test_a_run_sets_its_guard_then_resizes_and_the_guard_ends_it(
    compute: ComputeApi, scale: Scale
) -> None:
    on_request(compute, "gcp-group")
    # Another workload's group, and a fixed group of this one (no autoscaler): left alone.
    on_request(compute, "other")
    compute.add_group("gcp-group-base", GCP_REGION, labels("gcp-group"), policy=None)
    compute.state.slow_operations = True  # the client polls the region operation
    before = datetime.now(UTC)
    result = scale("gcp-group", "--to", "2", "--for", "8h", "--format", "json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert group(compute, "gcp-group")["targetSize"] == 2
    # The autoscaler stays off (a run does not use it), and so the group is not sized by load.
    assert autoscaler(compute, "gcp-group")["autoscalingPolicy"] == policy(3, "OFF")
    queue = guard_queue(compute, "gcp-group")
    ((name, task),) = queue.tasks.items()
    ends = datetime.fromisoformat(json.loads(result.stdout)["until"])
    assert abs(ends - (before + timedelta(hours=8))) < timedelta(seconds=30)
    assert abs(datetime.fromisoformat(task["scheduleTime"]) - ends) < timedelta(seconds=1)
    # The guard was in place before any VM was asked for.
    calls = [(r.method, r.path) for r in compute.received]
    created = calls.index(
        ("POST", f"/v2/{compute.tasks.queue_path(GCP_REGION, queue_name('gcp-group-group'))}/tasks")
    )
    resized = next(i for i, (_, path) in enumerate(calls) if path.endswith("/resize"))
    assert created < resized
    assert not guard_queue(compute, "other").tasks and group(compute, "other")["targetSize"] == 0
    assert json.loads(result.stdout)["parts"][0]["resources"] == [
        "gcp-group-group",
        queue_name("gcp-group-group"),
    ]
    # At its time the task makes its queue's call: the group goes to 0, whatever its VMs do.
    reply = compute.tasks.dispatch(queue, name, compute.route)
    assert reply.status == 200
    assert group(compute, "gcp-group")["targetSize"] == 0


def test_a_new_run_replaces_the_last_ones_guard(compute: ComputeApi, scale: Scale) -> None:
    on_request(compute, "gcp-group")
    assert scale("gcp-group", "--to", "1", "--for", "1h").exit_code == 0
    result = scale("gcp-group", "--to", "3", "--for", "2d", "--format", "json")
    assert result.exit_code == 0, result.output
    ((_, task),) = guard_queue(compute, "gcp-group").tasks.items()
    ends = datetime.fromisoformat(json.loads(result.stdout)["until"])
    assert abs(datetime.fromisoformat(task["scheduleTime"]) - ends) < timedelta(seconds=1)
    assert group(compute, "gcp-group")["targetSize"] == 3


def test_to_zero_resizes_then_removes_the_guard(compute: ComputeApi, scale: Scale) -> None:
    on_request(compute, "gcp-group")
    assert scale("gcp-group", "--to", "3", "--for", "1h").exit_code == 0
    result = scale("gcp-group", "--to", "0")
    assert result.exit_code == 0, result.output
    assert group(compute, "gcp-group")["targetSize"] == 0
    assert not guard_queue(compute, "gcp-group").tasks
    assert autoscaler(compute, "gcp-group")["autoscalingPolicy"]["mode"] == "OFF"


def test_to_zero_that_cannot_resize_keeps_the_guard(compute: ComputeApi, scale: Scale) -> None:
    """VMs never go without a guard: a resize refused leaves the run's end in place."""
    on_request(compute, "gcp-group")
    assert scale("gcp-group", "--to", "3", "--for", "1h").exit_code == 0
    compute.state.denied.add("compute.instanceGroupManagers.update")
    result = scale("gcp-group", "--to", "0")
    assert result.exit_code == 1
    (line,) = result.stderr.splitlines()
    assert "compute.instanceGroupManagers.update" in line
    assert "keeps its VMs until its guard ends the run" in line
    assert len(guard_queue(compute, "gcp-group").tasks) == 1
    assert group(compute, "gcp-group")["targetSize"] == 3


def test_a_run_whose_resize_fails_leaves_its_guard_and_says_so(
    compute: ComputeApi, scale: Scale
) -> None:
    on_request(compute, "gcp-group")
    compute.state.failing["compute.instanceGroupManagers.resize"] = (
        "ZONE_RESOURCE_POOL_EXHAUSTED",
        "The zone does not have enough resources available.",
    )
    result = scale("gcp-group", "--to", "2", "--for", "1h")
    assert result.exit_code == 1
    (line,) = result.stderr.splitlines()
    assert "ZONE_RESOURCE_POOL_EXHAUSTED" in line
    assert "the run's guard stays: it resizes gcp-group-group to 0 at" in line
    assert len(guard_queue(compute, "gcp-group").tasks) == 1


def test_a_group_without_its_guard_queue_is_not_run(compute: ComputeApi, scale: Scale) -> None:
    """A group deployed without its guard (an older stack) gets no VMs it cannot end."""
    compute.add_group("gcp-group", GCP_REGION, labels("gcp-group"), policy=policy(3, "OFF"))
    result = scale("gcp-group", "--to", "1", "--for", "1h")
    assert result.exit_code == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith("gcp: projects/") and "queues/gcp-group-group-guard not found" in line
    assert group(compute, "gcp-group")["targetSize"] == 0


def test_a_group_on_a_schedule_keeps_its_weekly_schedules(
    compute: ComputeApi, scale: Scale
) -> None:
    compute.add_group(
        "gcp-scheduled", GCP_REGION, labels("gcp-scheduled"), policy=policy(2, "ON", WEEKLY)
    )
    # Its schedule runs its planned hours: a run beside it is over the plan, and says so.
    refused = scale("gcp-scheduled", "--to", "1", "--for", "30m")
    assert refused.exit_code == 1 and "--over-plan REASON" in refused.stderr
    assert set(autoscaler(compute, "gcp-scheduled")["autoscalingPolicy"]["scalingSchedules"]) == {
        "run-0"
    }  # nothing changed
    before = datetime.now(UTC)
    why = ["--over-plan", "Release candidate eval"]
    assert scale("gcp-scheduled", "--to", "1", "--for", "30m", *why).exit_code == 0
    written = autoscaler(compute, "gcp-scheduled")["description"].split()
    assert "gpufleet-over-plan=release_candidate_eval" in written
    schedules = autoscaler(compute, "gcp-scheduled")["autoscalingPolicy"]["scalingSchedules"]
    assert set(schedules) == {"run-0", RUN_SCHEDULE}
    run = schedules[RUN_SCHEDULE]
    started = before.replace(second=0, microsecond=0)
    # A cron of this minute and year: it fires once, and holds the run's size for its time.
    assert run["schedule"] in {once_at(started), once_at(started + timedelta(minutes=1))}
    assert run["schedule"].endswith(f" * {started.year}") and run["timeZone"] == "UTC"
    assert run["minRequiredReplicas"] == 1 and 1800 <= run["durationSec"] <= 1860
    assert schedules["run-0"]["schedule"] == WEEKLY["run-0"]["schedule"]
    result = scale("gcp-scheduled", "--to", "0")
    assert result.exit_code == 0, result.output
    written = autoscaler(compute, "gcp-scheduled")["autoscalingPolicy"]
    assert written["mode"] == "ON"
    assert set(written["scalingSchedules"]) == {"run-0"}
    assert compute.state.groups["gcp-scheduled-group"]["targetSize"] == 0  # never resized


@pytest.mark.parametrize(
    ("permission", "resource"),
    [
        ("cloudtasks.tasks.create", "locations/{region}/queues/gcp-group-group-guard"),
        ("compute.instanceGroupManagers.list", "regions/{region}"),
    ],
)
def test_a_missing_permission_is_one_line_naming_it(
    compute: ComputeApi, scale: Scale, permission: str, resource: str
) -> None:
    on_request(compute, "gcp-group")
    if permission.startswith("cloudtasks."):
        compute.tasks.denied.add(permission)
    else:
        compute.state.denied.add(permission)
    result = scale("gcp-group", "--to", "1", "--for", "1h")
    assert result.exit_code == 1
    where = resource.format(region=GCP_REGION)
    assert result.stderr.splitlines() == [
        f"gcp: permission denied: {permission} on projects/{GCP_PROJECT}/{where}"
    ]
    assert group(compute, "gcp-group")["targetSize"] == 0


def test_a_stack_not_deployed_is_one_line(compute: ComputeApi, scale: Scale) -> None:
    result = scale("gcp-group", "--to", "1", "--for", "1h")
    assert result.exit_code == 1
    [line] = result.stderr.splitlines()
    assert line.startswith("gcp: no managed instance group whose template carries labels ")
    assert f"in projects/{GCP_PROJECT}/regions/{GCP_REGION}: is the stack deployed?" in line


def test_no_credentials_is_one_line(stack_config: Path, tmp_path: Path) -> None:
    """The real command in a process of its own: no credentials file, no gcloud config, no
    metadata server; nothing but one line on stderr (no warning, no traceback)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("GOOGLE_", "CLOUDSDK_", "GCE_"))
    }
    env.update(CLOUDSDK_CONFIG=str(tmp_path / "gcloud"), NO_GCE_CHECK="true")
    command = ["scale", "gcp-group", "--to", "1", "--for", "1h", "--program", str(ROOT)]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpufleet",
            *command,
            "--config",
            str(stack_config),
            "--env",
            "test",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        "gcp: no credentials found (GOOGLE_APPLICATION_CREDENTIALS, gcloud auth "
        "application-default login, or the metadata server of a GCP VM)"
    ]


def test_runs_stay_within_the_plans_hours_unless_told_why(
    compute: ComputeApi, scale: Scale, runs: Scale
) -> None:
    """The plan gives gcp-group 60 h a month at its full size (3 VMs), kept in its
    autoscaler's description beside the plan's use: 2 days at full size book 48 h, a third
    day is refused before anything is asked of the group, then run with a reason."""
    on_request(compute, "gcp-group")
    assert scale("gcp-group", "--to", "3", "--for", "2d").exit_code == 0
    month = datetime.now(UTC).strftime("%Y-%m")
    words = autoscaler(compute, "gcp-group")["description"].split()
    assert "gpufleet" in words and "expected-minutes=3600" in words  # the plan's use kept
    assert f"gpufleet-used={month}_2880_1" in words
    calls = len(compute.received)
    refused = scale("gcp-group", "--to", "3", "--for", "1d")
    assert refused.exit_code == 1 and "past its planned 60 h" in refused.stderr
    # Read, not written: the group, its guard and its autoscaler are as they were.
    assert all(r.method == "GET" for r in compute.received[calls:])
    assert group(compute, "gcp-group")["targetSize"] == 3
    why = ["--over-plan", "re-run after a bad checkpoint"]
    assert scale("gcp-group", "--to", "3", "--for", "1d", *why).exit_code == 0
    words = autoscaler(compute, "gcp-group")["description"].split()
    assert f"gpufleet-used={month}_4320_2" in words
    assert "gpufleet-over-plan=re-run_after_a_bad_checkpoint" in words
    listed = runs("--workload", "gcp-group", "--format", "json")
    assert listed.exit_code == 0, listed.output
    (part,) = json.loads(listed.stdout)["parts"]
    assert (part["used_hours"], part["runs"]) == (72.0, 2)
    assert part["over_plan"] == "re-run_after_a_bad_checkpoint"

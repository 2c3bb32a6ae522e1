"""``gpufleet scale`` on a GCP managed instance group, against a local HTTPS server speaking
the Compute Engine REST API (tests/runs/gcp_compute_server.py), reached through gcloud's
endpoint override with a service account key whose signed tokens it checks: the autoscaler turned
on with a one-off scaling schedule (the guard), ``--to 0``, a schedule-mode group left on its
weekly schedules, a missing permission and missing credentials as one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from gpufleet import tag_keys
from gpufleet.runs.gcp_groups import RUN_SCHEDULE, once_at
from tests.helpers import ROOT
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
    return api.state.autoscalers[f"{name}-autoscaler"]


def test_a_run_turns_the_autoscaler_on_with_a_one_off_schedule(
    compute: ComputeApi, scale: Scale
) -> None:
    compute.add_group("gcp-group", GCP_REGION, labels("gcp-group"), policy=policy(3, "OFF"))
    # Another workload's group, and a fixed group of this one (no autoscaler): left alone.
    compute.add_group("other", GCP_REGION, labels("other"), policy=policy(3, "OFF"))
    compute.add_group("gcp-group-base", GCP_REGION, labels("gcp-group"), policy=None)
    compute.state.slow_operations = True  # the client polls the region operation
    before = datetime.now(UTC)
    result = scale("gcp-group", "--to", "2", "--for", "8h", "--format", "json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    written = autoscaler(compute, "gcp-group")["autoscalingPolicy"]
    assert written["mode"] == "ON"
    # The run's N is the most too: the autoscaler's CPU signal cannot grow the group past it.
    assert written["maxNumReplicas"] == 2
    assert written["minNumReplicas"] == 0
    run = written["scalingSchedules"][RUN_SCHEDULE]
    assert run["minRequiredReplicas"] == 2
    assert run["timeZone"] == "UTC"
    started = before.replace(second=0, microsecond=0)
    assert run["schedule"] in {once_at(started), once_at(started + timedelta(minutes=1))}
    assert run["schedule"].endswith(f" * {started.year}")  # fires once
    ends = datetime.fromisoformat(json.loads(result.stdout)["until"])
    assert abs(ends - (before + timedelta(hours=8))) < timedelta(seconds=30)
    assert 8 * 3600 <= run["durationSec"] <= 8 * 3600 + 60
    assert autoscaler(compute, "other")["autoscalingPolicy"] == policy(3, "OFF")
    polled = [r for r in compute.received if "/operations/" in r.path]
    assert polled, "the update's operation was polled until DONE"
    assert json.loads(result.stdout)["parts"][0]["resources"] == [
        "gcp-group-group",
        "gcp-group-autoscaler",
    ]


def test_to_zero_removes_the_schedule_turns_off_and_resizes(
    compute: ComputeApi, scale: Scale
) -> None:
    compute.add_group("gcp-group", GCP_REGION, labels("gcp-group"), policy=policy(3, "OFF"))
    assert scale("gcp-group", "--to", "3", "--for", "1h").exit_code == 0
    compute.state.groups["gcp-group-group"]["targetSize"] = 3
    result = scale("gcp-group", "--to", "0")
    assert result.exit_code == 0, result.output
    written = autoscaler(compute, "gcp-group")["autoscalingPolicy"]
    assert written["mode"] == "OFF"
    assert RUN_SCHEDULE not in written.get("scalingSchedules", {})
    assert compute.state.groups["gcp-group-group"]["targetSize"] == 0


def test_to_zero_that_cannot_resize_puts_the_runs_end_back(
    compute: ComputeApi, scale: Scale
) -> None:
    """VMs never go without a guard: a resize refused leaves the run's schedule in place."""
    compute.add_group("gcp-group", GCP_REGION, labels("gcp-group"), policy=policy(3, "OFF"))
    assert scale("gcp-group", "--to", "3", "--for", "1h").exit_code == 0
    compute.state.groups["gcp-group-group"]["targetSize"] = 3
    compute.state.denied.add("compute.instanceGroupManagers.update")
    result = scale("gcp-group", "--to", "0")
    assert result.exit_code == 1
    (line,) = result.stderr.splitlines()
    assert "compute.instanceGroupManagers.update" in line and "put back" in line
    written = autoscaler(compute, "gcp-group")["autoscalingPolicy"]
    assert written["mode"] == "ON" and RUN_SCHEDULE in written["scalingSchedules"]


def test_a_group_on_a_schedule_keeps_its_weekly_schedules(
    compute: ComputeApi, scale: Scale
) -> None:
    compute.add_group(
        "gcp-scheduled", GCP_REGION, labels("gcp-scheduled"), policy=policy(2, "ON", WEEKLY)
    )
    assert scale("gcp-scheduled", "--to", "1", "--for", "30m").exit_code == 0
    schedules = autoscaler(compute, "gcp-scheduled")["autoscalingPolicy"]["scalingSchedules"]
    assert set(schedules) == {"run-0", RUN_SCHEDULE}
    assert schedules["run-0"]["schedule"] == WEEKLY["run-0"]["schedule"]
    result = scale("gcp-scheduled", "--to", "0")
    assert result.exit_code == 0, result.output
    written = autoscaler(compute, "gcp-scheduled")["autoscalingPolicy"]
    assert written["mode"] == "ON"
    assert set(written["scalingSchedules"]) == {"run-0"}
    assert compute.state.groups["gcp-scheduled-group"]["targetSize"] == 0  # never resized


def test_a_missing_permission_is_one_line_naming_it(compute: ComputeApi, scale: Scale) -> None:
    compute.add_group("gcp-group", GCP_REGION, labels("gcp-group"), policy=policy(3, "OFF"))
    compute.state.denied.add("compute.autoscalers.update")
    result = scale("gcp-group", "--to", "1", "--for", "1h")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "gcp: permission denied: compute.autoscalers.update on "
        f"projects/{GCP_PROJECT}/regions/{GCP_REGION}/autoscalers/gcp-group-autoscaler"
    ]
    assert autoscaler(compute, "gcp-group")["autoscalingPolicy"]["mode"] == "OFF"


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

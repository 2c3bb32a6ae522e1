"""``gpufleet scale`` on a GCP compact cluster's VMs, against the local Compute Engine API:
each VM started gets its own guard first (max run duration with STOP, set while stopped),
VMs already running count, ``--to 0`` stops them; a missing permission, and a zone out of
capacity, are one line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from gpufleet import tag_keys
from gpufleet.runs.run_duration import parse_duration
from tests.runs.conftest import Scale
from tests.runs.gcp_compute_server import ComputeApi
from tests.runs.stack_files import ENVIRONMENT, GCP_PROJECT, GCP_ZONE, PROJECT


def node_labels(workload: str, *, scales: bool = True) -> dict[str, str]:
    labels = {
        tag_keys.PROJECT: PROJECT,
        tag_keys.ENVIRONMENT: ENVIRONMENT,
        tag_keys.WORKLOAD: workload,
        tag_keys.MANAGED_BY: tag_keys.MANAGED_BY_GPUFLEET,
    }
    if scales:
        labels[tag_keys.gcp_label_key(tag_keys.EXPECTED_MINUTES)] = "23400"
    return labels


def cluster(api: ComputeApi, *statuses: str) -> None:
    for index, status in enumerate(statuses):
        api.add_instance(f"gcp-cluster-node-{index}", GCP_ZONE, node_labels("gcp-cluster"), status)
    # Another workload's stopped node, in the same zone: never touched.
    api.add_instance("other-node-0", GCP_ZONE, node_labels("other"), "TERMINATED")


def statuses(api: ComputeApi) -> dict[str, str]:
    return {name: vm["status"] for name, vm in api.state.instances.items()}


def test_each_node_started_stops_itself_when_the_run_ends(
    compute: ComputeApi, scale: Scale
) -> None:
    cluster(compute, "TERMINATED", "TERMINATED", "TERMINATED")
    result = scale("gcp-cluster", "--to", "3", "--for", "2h")
    assert result.exit_code == 0, result.output
    assert statuses(compute) == {
        "gcp-cluster-node-0": "RUNNING",
        "gcp-cluster-node-1": "RUNNING",
        "gcp-cluster-node-2": "RUNNING",
        "other-node-0": "TERMINATED",
    }
    for name in ("gcp-cluster-node-0", "gcp-cluster-node-1", "gcp-cluster-node-2"):
        scheduling = compute.state.instances[name]["scheduling"]
        assert scheduling["instanceTerminationAction"] == "STOP"
        seconds = int(scheduling["maxRunDuration"]["seconds"])
        assert parse_duration("2h") <= timedelta(seconds=seconds) <= timedelta(hours=2, seconds=1)
        # The VM's other scheduling settings are sent back as they were.
        assert scheduling["provisioningModel"] == "SPOT"
        assert scheduling["onHostMaintenance"] == "TERMINATE"
    # Each guard is set before its VM starts (the API refuses it on a running VM).
    calls = [r.path.rsplit("/", 2)[-2:] for r in compute.received if r.method == "POST"]
    node_0 = [action for name, action in calls if name == "gcp-cluster-node-0"]
    assert node_0 == ["setScheduling", "start", "setLabels"]
    # Booked once it runs: each node's labels keep the month's ledger, the others kept.
    labels = compute.state.instances["gcp-cluster-node-0"]["labels"]
    assert labels["gpufleet-used"].endswith("_120_1")  # 3 of 3 nodes for 2 h: 120 minutes
    assert labels["workload"] == "gcp-cluster"


def test_a_run_while_nodes_of_the_last_still_run_is_refused(
    compute: ComputeApi, scale: Scale
) -> None:
    """A running VM's end was set while it was stopped: a new run cannot move it, so it says
    so instead of printing an end the VM does not have; --to 0 stops them."""
    cluster(compute, "RUNNING", "TERMINATED", "TERMINATED")
    result = scale("gcp-cluster", "--to", "3", "--for", "1h")
    assert result.exit_code == 1
    (line,) = result.stderr.splitlines()
    assert "1 node(s) already running from an earlier run" in line
    assert list(statuses(compute).values()).count("RUNNING") == 1  # nothing started
    ended = scale("gcp-cluster", "--to", "0")
    assert ended.exit_code == 0, ended.output
    assert set(statuses(compute).values()) == {"TERMINATED"}
    assert "1 VM(s) stopped" in ended.stdout


def test_a_multi_node_job_runs_all_its_nodes_or_none(compute: ComputeApi, scale: Scale) -> None:
    cluster(compute, "TERMINATED", "TERMINATED", "TERMINATED")
    result = scale("gcp-cluster", "--to", "2", "--for", "1h")
    assert result.exit_code == 2
    assert "multi-node job of 3 nodes" in result.stderr
    assert set(statuses(compute).values()) == {"TERMINATED"}


def test_a_missing_permission_is_one_line_naming_it(compute: ComputeApi, scale: Scale) -> None:
    cluster(compute, "TERMINATED", "TERMINATED", "TERMINATED")
    compute.state.denied.add("compute.instances.setScheduling")
    result = scale("gcp-cluster", "--to", "3", "--for", "1h")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "gcp: permission denied: compute.instances.setScheduling on "
        f"projects/{GCP_PROJECT}/zones/{GCP_ZONE}/instances/gcp-cluster-node-0"
    ]
    assert set(statuses(compute).values()) == {"TERMINATED"}  # nothing started unguarded


def test_fixed_nodes_of_the_workload_are_not_found(compute: ComputeApi, scale: Scale) -> None:
    compute.add_instance(
        "gcp-cluster-node-0", GCP_ZONE, node_labels("gcp-cluster", scales=False), "TERMINATED"
    )
    result = scale("gcp-cluster", "--to", "3", "--for", "1h")
    assert result.exit_code == 1
    [line] = result.stderr.splitlines()
    assert line.startswith("gcp: no VMs that run on request, labelled ")


def test_a_zone_out_of_capacity_is_one_line(compute: ComputeApi, scale: Scale) -> None:
    cluster(compute, "TERMINATED", "TERMINATED", "TERMINATED")
    message = "The zone 'projects/p/zones/us-east4-a' does not have enough resources available."
    compute.state.failing["compute.instances.start"] = ("ZONE_RESOURCE_POOL_EXHAUSTED", message)
    result = scale("gcp-cluster", "--to", "3", "--for", "1h")
    assert result.exit_code == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        "gcp: compute.instances.start on "
        f"projects/{GCP_PROJECT}/zones/{GCP_ZONE}/instances/gcp-cluster-node-0 failed: "
        f"ZONE_RESOURCE_POOL_EXHAUSTED: {message}; "
    )
    assert "nodes that did start stop themselves at" in line
    # Its guard was set first: the VM, should it start later, stops itself.
    scheduling = compute.state.instances["gcp-cluster-node-0"]["scheduling"]
    assert int(scheduling["maxRunDuration"]["seconds"]) == 3600


def test_runs_stay_within_the_plans_hours_unless_told_why(
    compute: ComputeApi, scale: Scale
) -> None:
    """60 h a month planned for the whole cluster: 2 days book 48 h in each node's labels; one
    more day is refused before any node is started."""
    cluster(compute, "TERMINATED", "TERMINATED", "TERMINATED")
    assert scale("gcp-cluster", "--to", "3", "--for", "2d").exit_code == 0
    assert scale("gcp-cluster", "--to", "0").exit_code == 0  # ended at once: given back
    month = datetime.now(UTC).strftime("%Y-%m")
    labels = compute.state.instances["gcp-cluster-node-2"]["labels"]
    used = int(labels["gpufleet-used"].split("_")[1])
    assert labels["gpufleet-used"].startswith(f"{month}_") and used <= 1
    assert scale("gcp-cluster", "--to", "3", "--for", "2d").exit_code == 0
    assert scale("gcp-cluster", "--to", "0").exit_code == 0
    compute.state.instances["gcp-cluster-node-0"]["labels"]["gpufleet-used"] = f"{month}_2880_2"
    compute.state.instances["gcp-cluster-node-0"]["labels"]["gpufleet-last-run"] = ""
    refused = scale("gcp-cluster", "--to", "3", "--for", "1d")
    assert refused.exit_code == 1 and "with the 48 h used in" in refused.stderr
    assert set(statuses(compute).values()) == {"TERMINATED"}

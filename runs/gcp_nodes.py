"""A run on a GCP compact cluster (``gcp:CompactCluster``): its VMs, created stopped.

The stack builds the nodes of a multi-node job as VMs in one placement policy, stopped
(``TERMINATED``) until a run, and leaves their state alone later. A run gives each stopped
VM it starts its guard first: ``max_run_duration`` = the run's length with
``instance_termination_action`` STOP (set while the VM is stopped, as GCP requires), so the
VM stops itself when the time is up; then starts it. A run while nodes of an earlier one still
run is refused (a running VM cannot be given a new end without stopping it): ``--to 0``
first. ``--to 0`` stops the running ones.

The VMs are found by the workload's labels in the workload's zone; the nodes of a cluster
that runs on request also carry its expected use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from gpufleet.runs.cloud_error import CloudError, not_deployed
from gpufleet.runs.gcp_access import (
    GcpAccess,
    compute_v1,
    gcp_access,
    gcp_errors,
    label_filter,
    wait,
)
from gpufleet.runs.part_change import PartChange
from gpufleet.runs.run_duration import RunWindow
from gpufleet.runs.run_parts import PartRun
from gpufleet.runs.stack_target import StackTarget
from gpufleet.runs.workload_tags import carries, scales, tags_text, workload_labels

# Statuses of a VM that runs (or is on its way), and of one that can be started.
RUNNING = frozenset({"PROVISIONING", "STAGING", "RUNNING", "REPAIRING"})
STOPPED = frozenset({"TERMINATED"})


@dataclass(frozen=True)
class GcpNodes:
    """A compact cluster's nodes, as found; each keeps the month's ledger in its labels."""

    access: GcpAccess
    zone: str
    nodes: list[compute_v1.Instance]

    @property
    def ledger_tags(self) -> dict[str, str]:
        # Every node is written alike; the first by name is read.
        first = min(self.nodes, key=lambda vm: vm.name)
        return dict(first.labels)


def find_nodes(run: PartRun, target: StackTarget) -> GcpNodes:
    access = gcp_access(target.site.gcp().project)
    zone = run.workload.zone
    return GcpNodes(
        access, zone, _nodes(access, zone, workload_labels(target.settings, run.workload))
    )


def scale_nodes(
    run: PartRun, window: RunWindow, found: GcpNodes, ledger: dict[str, str]
) -> PartChange:
    access, zone, nodes = found.access, found.zone, found.nodes
    running = sorted((vm for vm in nodes if vm.status in RUNNING), key=lambda vm: vm.name)
    stopped = sorted((vm for vm in nodes if vm.status in STOPPED), key=lambda vm: vm.name)
    wanted = run.instances if window.until is not None else 0
    to_stop = running[wanted:]
    to_start = stopped[: max(wanted - len(running), 0)]
    if len(running) + len(stopped) < wanted:
        busy = ", ".join(f"{vm.name} {vm.status}" for vm in nodes if vm not in running + stopped)
        raise CloudError(
            "gcp", f"{wanted} node(s) asked, {len(running) + len(stopped)} can run ({busy})"
        )
    if window.until is not None and running[:wanted]:
        # A running VM's end is its own max run duration, set while it was stopped: a new
        # end cannot be given to it without stopping it.
        raise CloudError(
            "gcp",
            f"{len(running)} node(s) already running from an earlier run, which stops them at "
            "its own end: scale to 0 first for a run with a new end",
        )
    nodes_client = access.client(compute_v1.InstancesClient)
    _each(
        access, zone, "compute.instances.stop", [vm.name for vm in to_stop], nodes_client.stop_unary
    )
    if window.until is not None:
        seconds = math.ceil((window.until - window.start).total_seconds())
        for vm in to_start:
            _set_max_run(access, zone, vm, seconds)
        try:
            _each(
                access,
                zone,
                "compute.instances.start",
                [vm.name for vm in to_start],
                nodes_client.start,
            )
        except CloudError as exc:
            end = window.until.strftime("%Y-%m-%d %H:%M UTC")
            raise exc.after(
                f"nodes that did start stop themselves at {end}; scale to 0 stops them now"
            ) from None
    names = tuple(vm.name for vm in [*running[:wanted], *to_start, *to_stop])
    try:
        _write_ledger(found, ledger)  # booked once it runs (or given back once it ended)
    except CloudError as exc:
        raise exc.after(f"{wanted} node(s) run, but the run is not in their ledger") from None
    if window.until is None:
        guard = f"{len(to_stop)} VM(s) stopped"
    else:
        end = window.until.strftime("%Y-%m-%d %H:%M UTC")
        guard = f"each VM started stops itself at {end} (max run duration, STOP)"
    return PartChange(run.part.component, wanted, names, guard)


def _nodes(access: GcpAccess, zone: str, labels: dict[str, str]) -> list[compute_v1.Instance]:
    project = access.project
    listing = label_filter(labels)
    where = f"projects/{project}/zones/{zone}"
    with gcp_errors("compute.instances.list", where):
        found = [
            vm
            for vm in access.client(compute_v1.InstancesClient).list(
                request=compute_v1.ListInstancesRequest(project=project, zone=zone, filter=listing)
            )
            if carries(vm.labels, labels) and scales(vm.labels, labels=True)
        ]
    if not found:
        raise not_deployed("gcp", f"VMs that run on request, labelled {tags_text(labels)}", where)
    return found


def _write_ledger(found: GcpNodes, ledger: dict[str, str]) -> None:
    """The ledger into every node's labels (``setLabels`` replaces them all: the others are
    sent back as they are, with the fingerprint that guards against a concurrent change)."""
    for vm in found.nodes:
        resource = f"projects/{found.access.project}/zones/{found.zone}/instances/{vm.name}"
        labels = {**dict(vm.labels), **ledger}
        with gcp_errors("compute.instances.setLabels", resource):
            wait(
                found.access,
                found.access.client(compute_v1.InstancesClient).set_labels_unary(
                    project=found.access.project,
                    zone=found.zone,
                    instance=vm.name,
                    instances_set_labels_request_resource=compute_v1.InstancesSetLabelsRequest(
                        labels=labels, label_fingerprint=vm.label_fingerprint
                    ),
                ),
            )


def _set_max_run(access: GcpAccess, zone: str, vm: compute_v1.Instance, seconds: int) -> None:
    """The VM's own guard: it stops after ``seconds`` of running. Its other scheduling
    settings are sent back as they are (``setScheduling`` replaces them all)."""
    scheduling = vm.scheduling
    scheduling.max_run_duration = compute_v1.Duration(seconds=seconds)
    scheduling.instance_termination_action = "STOP"
    resource = f"projects/{access.project}/zones/{zone}/instances/{vm.name}"
    with gcp_errors("compute.instances.setScheduling", resource):
        wait(
            access,
            access.client(compute_v1.InstancesClient).set_scheduling_unary(
                project=access.project, zone=zone, instance=vm.name, scheduling_resource=scheduling
            ),
        )


def _each(access: GcpAccess, zone: str, permission: str, names: list[str], call: Any) -> None:
    """Start (or stop) every VM, then wait for all: they boot (or stop) side by side."""
    operations = []
    for name in names:
        resource = f"projects/{access.project}/zones/{zone}/instances/{name}"
        with gcp_errors(permission, resource):
            operations.append((resource, call(project=access.project, zone=zone, instance=name)))
    for resource, operation in operations:
        with gcp_errors(permission, resource):
            wait(access, operation)

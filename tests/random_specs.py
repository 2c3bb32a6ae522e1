"""Workloads drawn by hypothesis, written as a spec's YAML: the random-spec tests (the plan is
the bill, the gate agrees with the builder) draw their own mixes and write them here alike."""

from __future__ import annotations

from typing import Any

from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.gpus import GPUS
from gpufleet.planner.managed_services import MANAGED_SERVICES

# The GPUs the planner may choose on its own, as the shipped catalog sells them.
AUTO_GPUS: tuple[str, ...] = tuple(sorted(n for n in load_catalog().gpu_names() if GPUS[n].auto))


def workload_yaml(index: int, w: dict[str, Any]) -> str:
    """One drawn workload as a spec's ``workloads`` entry. ``managed`` and ``cloud`` are
    optional draws (a managed service takes no schedule and no nodes; it wins over a cloud
    where it runs the workload's kind), and so are ``per_instance``, the most replicas or
    workers one instance may run, and ``sharing`` with ``share_memory``, how they share a GPU
    and the memory one needs (where they pack: not training, not a managed service)."""
    managed, cloud = w.get("managed"), w.get("cloud")
    sharing = w.get("sharing")
    lines = [
        f"  - name: w{index}",
        f"    kind: {w['kind']}",
        # A replica that shares a GPU uses one.
        f"    gpu: {{name: {w['gpu']}, count: {1 if sharing else w['count']}}}",
        f"    interruptible: {str(w['interruptible']).lower()}",
    ]
    if managed is not None and w["kind"] in MANAGED_SERVICES[managed].kinds:
        lines.append(f"    managed: {managed}")
    elif cloud is not None:
        lines.append(f"    clouds: [{cloud}]")
    if w["schedule"] is not None and managed is None:
        lines.append(f"    schedule: {w['schedule']}")
    elif w["hours"] is not None:
        lines.append(f"    hours_per_month: {w['hours']}")
    if w["kind"] == "inference":
        least, most = w["replicas"]
        lines.append(f"    replicas: {{min: {least}, max: {most}}}")
        if w["always_on"]:
            lines.append("    always_on: true")
    elif w["nodes"] > 1 and managed is None:
        lines.append(f"    nodes: {w['nodes']}")
    managed_here = managed is not None and w["kind"] in MANAGED_SERVICES[managed].kinds
    if w.get("per_instance") is not None and w["kind"] != "training" and not managed_here:
        lines.append(f"    max_replicas_per_instance: {w['per_instance']}")
    if sharing is not None and w["kind"] != "training" and not managed_here:
        lines.append(f"    sharing: {sharing}")
        lines.append(f"    replica_gpu: {{memory_gib: {w.get('share_memory', 8)}}}")
    return "\n".join(lines) + "\n"

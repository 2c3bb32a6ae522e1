"""Which parts of a workload a run scales, and how many instances each gets.

A part scales when the stack sizes it on request or on a schedule (``Part.scaling``) and it is
a group gpufleet can size: an Auto Scaling group, a GCP managed instance group or compact
cluster, an Azure scale set. What kind of group a component builds follows from its role in
the registry (``stacks/component_registry.py``): a cloud's ``fleet`` or ``multi_node``
component is its group; reserved capacity is held all month; a managed service's capacity
(SageMaker jobs, Azure ML clusters) comes and goes with the service's own jobs.

``--to N`` fills the parts that scale in part order, each up to its ``instances`` (the
stack's maximum); more than their sum is bad input, as is a workload none of whose parts
scale (each says how its capacity is used instead).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeGuard

from gpufleet.clouds import Cloud
from gpufleet.planner.spec import MANAGED_SERVICES, Managed
from gpufleet.stacks.component_registry import COMPONENTS, CapacityRole, ComponentEntry, Role
from gpufleet.stacks.placement_parts import runs_as_one_job
from gpufleet.stacks.stack_config import Part, StackSettings, WorkloadPlacement

# The kinds of group a run sizes (one module each in this package). An AWS fleet is counted
# in GPUs (its instance types are weighted by their GPUs), a placement cluster in nodes.
GroupKind = Literal[
    "aws_group_in_gpus", "aws_group_in_nodes", "gcp_group", "gcp_nodes", "azure_scale_set"
]
GROUP_KINDS: dict[tuple[Cloud, CapacityRole], GroupKind] = {
    ("aws", "fleet"): "aws_group_in_gpus",
    ("aws", "multi_node"): "aws_group_in_nodes",
    ("gcp", "fleet"): "gcp_group",
    ("gcp", "multi_node"): "gcp_nodes",
    ("azure", "fleet"): "azure_scale_set",
    ("azure", "multi_node"): "azure_scale_set",
}


def is_managed(role: Role) -> TypeGuard[Managed]:
    return role in MANAGED_SERVICES


class ScaleInputError(Exception):
    """Bad input for a run (exit 2): one line per problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass(frozen=True)
class PartRun:
    """One part of a workload and the instances a run gives it."""

    workload: WorkloadPlacement
    index: int  # the part's position in the workload (0: its base)
    part: Part
    group: GroupKind
    instances: int


def group_kind(entry: ComponentEntry) -> GroupKind | None:
    """The kind of group a component builds; None for capacity a run does not size."""
    kinds: set[GroupKind] = set()
    for role in entry.roles:
        found = GROUP_KINDS.get((entry.cloud, role))  # type: ignore[arg-type]
        if found is not None:
            kinds.add(found)
    if len(kinds) > 1:
        raise LookupError(f"{entry.name} builds groups of several kinds: {sorted(kinds)}")
    return next(iter(kinds), None)


def find_workload(settings: StackSettings, name: str) -> WorkloadPlacement:
    for workload in settings.workloads:
        if workload.name == name:
            return workload
    names = ", ".join(w.name for w in settings.workloads) or "none"
    raise ScaleInputError(
        [f"no workload {name!r} in environment {settings.environment}; workloads: {names}"]
    )


def unscalable_reason(workload: WorkloadPlacement, part: Part) -> str | None:
    """Why a run cannot size this part, saying how its capacity is used instead; None when
    it scales."""
    entry = COMPONENTS[part.component]
    where = f"{workload.name}: {part.component}"
    for role in entry.roles:
        if is_managed(role):
            return f"{where} {_MANAGED_USE[role]}; gpufleet scale sizes groups"
    if group_kind(entry) is None:
        return (
            f"{where} holds its {part.instances} instance(s) all month (reserved capacity): "
            "nothing to scale; work runs on it by launching into the reservation"
        )
    if part.scaling == "on_load":
        return (
            f"{where} is a serving burst that follows its base's load (autoscaling): "
            "nothing to run by hand"
        )
    if part.scaling == "schedule" and entry.cloud == "aws":
        # Its schedule is scheduled actions that set sizes: a run's end (desired 0) would
        # leave it at 0 whatever the schedule has in force until the schedule's next action.
        return (
            f"{where} runs on its weekly schedule (scheduled actions): a run would end it at "
            "0 whatever the schedule holds; change the schedule in the spec"
        )
    if part.scaling == "fixed":
        return (
            f"{where} runs its {part.instances} instance(s) all month (scaling: fixed): its "
            "size is the spec's (gpufleet generate, then pulumi up)"
        )
    return None


_MANAGED_USE: dict[Managed, str] = {
    "sagemaker": "is a SageMaker managed spot training job template: start a training job "
    "(SageMaker brings the instances and releases them when the job ends)",
    "azureml": "is an Azure ML compute cluster that scales from 0 on queued jobs: submit a "
    "job to it (the cluster scales back down when idle)",
}


def spread(workload: WorkloadPlacement, count: int) -> list[PartRun]:
    """The parts a run scales, with the instances each gets (``count`` filled in part order);
    ScaleInputError when none scales or ``count`` is more than they hold."""
    runs: list[PartRun] = []
    reasons: list[str] = []
    for index, part in enumerate(workload.parts):
        reason = unscalable_reason(workload, part)
        if reason is not None:
            reasons.append(reason)
            continue
        kind = group_kind(COMPONENTS[part.component])
        assert kind is not None  # unscalable_reason said it is a group
        runs.append(PartRun(workload, index, part, kind, 0))
    if not runs:
        raise ScaleInputError(reasons)
    most = sum(run.part.instances for run in runs)
    if count > most:
        raise ScaleInputError(
            [
                f"--to {count}: {workload.name} may run at most {most} instance(s) on request "
                f"({_parts_text(runs)})"
            ]
        )
    left = count
    spread_runs = []
    for run in runs:
        take = min(left, run.part.instances)
        if 0 < take < run.part.instances and _one_job(run):
            raise ScaleInputError(
                [
                    f"--to {count}: {workload.name} is a multi-node job of "
                    f"{run.part.instances} nodes, which run together: --to 0 or "
                    f"--to {run.part.instances}"
                ]
            )
        left -= take
        spread_runs.append(PartRun(run.workload, run.index, run.part, run.group, take))
    return spread_runs


def _one_job(run: PartRun) -> bool:
    """Whether the part is a multi-node job's nodes: the base part, built by a component
    that builds multi-node jobs, for a job placement_parts calls one."""
    entry = COMPONENTS[run.part.component]
    return (
        run.index == 0
        and "multi_node" in entry.roles
        and runs_as_one_job(run.workload.kind, run.part.instances)
    )


def _parts_text(runs: list[PartRun]) -> str:
    return ", ".join(f"{run.part.component} up to {run.part.instances}" for run in runs)

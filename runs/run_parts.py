"""Which parts of a workload a run scales, and how many instances each gets.

A part scales when the stack sizes it on request or on a schedule (``Part.scaling``) and it is
a group gpufleet can size: an Auto Scaling group, a GCP managed instance group or compact
cluster, an Azure scale set. The kind of group a component builds is its capability's
``group`` (``planner/capabilities.py``); reserved capacity is held all month; a managed
service's capacity (SageMaker jobs, Azure ML clusters) comes and goes with the service's own
jobs, used as the service says (``managed_services``).

``--to N`` fills the parts that scale in part order, each up to its ``instances`` (the
stack's maximum); more than their sum is bad input, as is a workload none of whose parts
scale (each says how its capacity is used instead).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpufleet.planner.capabilities import CAPABILITIES, GroupKind, runs_as_one_job
from gpufleet.planner.managed_services import MANAGED_SERVICES
from gpufleet.stacks.stack_config import Part, StackSettings, WorkloadPlacement


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
    capability = CAPABILITIES[part.component]
    where = f"{workload.name}: {part.component}"
    if capability.managed is not None:
        used = MANAGED_SERVICES[capability.managed].used_by
        return f"{where} {used}; gpufleet scale sizes groups"
    if capability.group is None:
        return (
            f"{where} holds its {part.instances} instance(s) all month (reserved capacity): "
            "nothing to scale; work runs on it by launching into the reservation"
        )
    if part.scaling == "on_load":
        return (
            f"{where} is a serving burst that follows its base's load (autoscaling): "
            "nothing to run by hand"
        )
    if part.scaling == "schedule" and capability.cloud == "aws":
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
        kind = CAPABILITIES[part.component].group
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
    return (
        run.index == 0
        and "multi_node" in CAPABILITIES[run.part.component].realizes
        and runs_as_one_job(run.workload.kind, run.part.instances)
    )


def _parts_text(runs: list[PartRun]) -> str:
    return ", ".join(f"{run.part.component} up to {run.part.instances}" for run in runs)

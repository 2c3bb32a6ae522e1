"""``gpufleet scale`` end to end, short of rendering: read the stack config, check the request,
book the run against the plan, then size each part that scales through its cloud's SDK, guard
first.

Bad input (an unknown workload, ``--to`` above what the stack allows, a bad or missing
``--for``, a part that cannot be scaled) raises ``ScaleInputError`` before any cloud is asked;
a run past the plan's hours (``usage_ledger``) raises ``OverPlanError`` once every part's
ledger is read, before any is sized; a cloud's refusal raises ``CloudError``. The cloud modules
are imported here, when a part of theirs is scaled, so nothing else pays for their SDKs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from gpufleet.clouds import Cloud
from gpufleet.planner.capabilities import GroupKind
from gpufleet.runs.part_change import PartChange
from gpufleet.runs.run_duration import RunWindow, parse_duration
from gpufleet.runs.run_parts import PartRun, ScaleInputError, find_workload, spread
from gpufleet.runs.stack_target import StackTarget, check_site, read_stack
from gpufleet.runs.usage_ledger import Booking, booked_minutes, read_ledger
from gpufleet.stacks.stack_config import Part


@dataclass(frozen=True)
class ScaleRequest:
    program: Path
    stack: str
    config_file: Path | None
    workload: str
    count: int
    duration: str | None  # --for as given; required when count > 0, refused with 0
    over_plan: str | None = None  # --over-plan: why a run past the plan's hours runs anyway


@dataclass(frozen=True)
class ScaleOutcome:
    environment: str
    workload: str
    cloud: Cloud
    region: str
    count: int
    window: RunWindow
    changes: list[PartChange]


class FoundGroup(Protocol):
    """A group a run sizes, as its cloud module found it: its tags keep the ledger."""

    @property
    def ledger_tags(self) -> Mapping[str, str]: ...


Finder = Callable[[PartRun, StackTarget], Any]
Scaler = Callable[[PartRun, RunWindow, Any, dict[str, str]], PartChange]


def scale(request: ScaleRequest, now: datetime | None = None) -> ScaleOutcome:
    """Size the workload's parts that scale; each run booked against the plan first, every
    part's ledger read and checked before any part is sized (OverPlanError: nothing
    changed)."""
    problems = _duration_problems(request)
    if request.over_plan is not None and not request.over_plan.strip():
        problems.append("--over-plan needs a reason (it is recorded on the group)")
    target = read_stack(request.program, request.stack, request.config_file)
    try:
        workload = find_workload(target.settings, request.workload)
        runs = spread(workload, request.count)
    except ScaleInputError as exc:
        raise ScaleInputError([*exc.problems, *problems]) from None
    if problems:
        raise ScaleInputError(problems)
    check_site(target, workload)
    duration = None if request.duration is None else parse_duration(request.duration)
    window = RunWindow.from_now(duration, now)
    found = [(run, _cloud(run.group)[0](run, target)) for run in runs]
    booked = []
    for run, group in found:
        booking = Booking(
            f"{workload.name}: {run.part.component}",
            planned_hours(run.part),
            booked_minutes(run.instances, run.part.instances, window),
            window,
            request.over_plan,
        )
        ledger = read_ledger(group.ledger_tags, window.start)
        booking.check(ledger)
        booked.append((run, group, booking.after(ledger)))
    changes = [_cloud(run.group)[1](run, window, group, tags) for run, group, tags in booked]
    return ScaleOutcome(
        environment=target.settings.environment,
        workload=workload.name,
        cloud=workload.cloud,
        region=workload.region,
        count=request.count,
        window=window,
        changes=changes,
    )


def _duration_problems(request: ScaleRequest) -> list[str]:
    if request.count == 0:
        if request.duration is not None:
            return ["--for does not go with --to 0: scaling to zero ends the run"]
        return []
    if request.duration is None:
        return [
            f"--to {request.count} needs --for DURATION (such as 8h): how long the run may "
            "last before its capacity returns to zero"
        ]
    try:
        parse_duration(request.duration)
    except ValueError as exc:
        return [str(exc)]
    return []


def planned_hours(part: Part) -> float:
    """Hours a month the plan gives a part's runs at full size: its expected use on request;
    none for a part its weekly schedule runs."""
    if part.scaling != "on_request":
        return 0.0
    return part.expected_hours or 0.0


def _cloud(kind: GroupKind) -> tuple[Finder, Scaler]:
    """The functions that find and size a kind of group, their module imported now."""
    if kind in ("aws_group_in_gpus", "aws_group_in_nodes"):
        from gpufleet.runs import aws_groups

        return aws_groups.find_group, aws_groups.scale_group
    if kind == "gcp_group":
        from gpufleet.runs import gcp_groups

        return gcp_groups.find_group, gcp_groups.scale_group
    if kind == "gcp_nodes":
        from gpufleet.runs import gcp_nodes

        return gcp_nodes.find_nodes, gcp_nodes.scale_nodes
    from gpufleet.runs import azure_scale_sets

    return azure_scale_sets.find_scale_set, azure_scale_sets.scale_scale_set


def find_group(run: PartRun, target: StackTarget) -> FoundGroup:
    """The group a part's runs size, found in its cloud (for ``gpufleet runs``)."""
    found: FoundGroup = _cloud(run.group)[0](run, target)
    return found

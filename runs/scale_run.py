"""``gpufleet scale`` end to end, short of rendering: read the stack config, check the request,
then size each part that scales through its cloud's SDK, guard first.

Bad input (an unknown workload, ``--to`` above what the stack allows, a bad or missing
``--for``, a part that cannot be scaled) raises ``ScaleInputError`` before any cloud is asked;
a cloud's refusal raises ``CloudError``. The cloud modules are imported here, when a part of
theirs is scaled, so nothing else pays for their SDKs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from gpufleet.clouds import Cloud
from gpufleet.runs.part_change import PartChange
from gpufleet.runs.run_duration import RunWindow, parse_duration
from gpufleet.runs.run_parts import GroupKind, PartRun, ScaleInputError, find_workload, spread
from gpufleet.runs.stack_target import StackTarget, check_site, read_stack


@dataclass(frozen=True)
class ScaleRequest:
    program: Path
    stack: str
    config_file: Path | None
    workload: str
    count: int
    duration: str | None  # --for as given; required when count > 0, refused with 0


@dataclass(frozen=True)
class ScaleOutcome:
    environment: str
    workload: str
    cloud: Cloud
    region: str
    count: int
    window: RunWindow
    changes: list[PartChange]


Scaler = Callable[[PartRun, StackTarget, RunWindow], PartChange]


def scale(request: ScaleRequest, now: datetime | None = None) -> ScaleOutcome:
    problems = _duration_problems(request)
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
    changes = [_scaler(run.group)(run, target, window) for run in runs]
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


def _scaler(kind: GroupKind) -> Scaler:
    """The function that sizes a kind of group, its module imported now."""
    if kind in ("aws_group_in_gpus", "aws_group_in_nodes"):
        from gpufleet.runs.aws_groups import scale_group

        return scale_group
    if kind == "gcp_group":
        from gpufleet.runs.gcp_groups import scale_group as scale_gcp_group

        return scale_gcp_group
    if kind == "gcp_nodes":
        from gpufleet.runs.gcp_nodes import scale_nodes

        return scale_nodes
    from gpufleet.runs.azure_scale_sets import scale_scale_set

    return scale_scale_set

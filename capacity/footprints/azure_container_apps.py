"""GPU footprints of Azure Container Apps: an environment's GPU workload profiles, and the apps
and jobs that run on its serverless ones.

A dedicated GPU profile (``NC24-A100``...) is nodes the environment holds, from its minimum to
its maximum count, whatever runs on them: read on the environment, a part per profile. A
serverless (Consumption) GPU profile holds nothing until an app or a job runs on it, and then a
GPU per replica: read on the apps and jobs that name it, from their environment's profiles
(``stack_capacity`` hands them over, ``inherit_environment``). An app on a profile of an
environment outside the stack cannot be told from one on a CPU profile: undetermined, unless it
runs on the Consumption profile.

Container Apps bills its own rates, which gpufleet's catalog does not hold: sized, unpriced.
"""

from __future__ import annotations

import math
import re
from typing import Any

from gpufleet import resource_types as types
from gpufleet.capacity.footprints.model import GpuFootprint, Machine
from gpufleet.capacity.footprints.reading import MAX_COUNT, Reading, inherits, reads
from gpufleet.capacity.property_values import as_list, get_path, is_unknown
from gpufleet.planner.schedules import MINUTES_PER_WEEK, ScheduleError, weekly_starts

# Where ``stack_capacity`` puts the properties of the environment an app or job names.
ENVIRONMENT = "gpufleet:environment"

# GPUs per node of the dedicated GPU profiles and per replica of the serverless ones, from
# Microsoft's tables: https://learn.microsoft.com/azure/container-apps/workload-profiles-overview
# (Dedicated-NC24-A100: 1 GPU, NC48-A100: 2, NC96-A100: 4, allocated per node; the
# Consumption-GPU-NC24-A100 and -NC8as-T4 profiles per replica) and
# https://learn.microsoft.com/azure/container-apps/gpu-serverless-overview ("Multi and
# fractional GPU replicas aren't supported": a replica has one).
DEDICATED_GPU_PROFILES = {
    "nc24-a100": ("A100-80GB", 1),
    "nc48-a100": ("A100-80GB", 2),
    "nc96-a100": ("A100-80GB", 4),
}
SERVERLESS_GPU_PROFILES = {
    "consumption-gpu-nc24-a100": ("A100-80GB", 1),
    "consumption-gpu-nc8as-t4": ("T4", 1),
}
# Profiles of the same tables without GPUs: Consumption, general purpose (D), memory optimized
# (E), confidential (DC), Flexible.
_CPU_PROFILE = re.compile(r"^(?:consumption|flex(?:ible)?|d\d+|e\d+|dc\d+)$", re.I)
CONSUMPTION = "consumption"

_NOTE = "Container Apps bills GPU profiles at its own rates, which gpufleet's catalog lacks"
# Container Apps' defaults: an app scales from 0 to 10 replicas; a job's event trigger runs
# up to 100 executions of one replica each.
_MAX_REPLICAS = 10.0
_MAX_EXECUTIONS = 100.0


@inherits(types.CONTAINER_APP, "managedEnvironmentId", types.CONTAINER_APPS_ENVIRONMENT)
@inherits(types.CONTAINER_APP, "environmentId", types.CONTAINER_APPS_ENVIRONMENT)
@inherits(types.CONTAINER_APPS_JOB, "environmentId", types.CONTAINER_APPS_ENVIRONMENT)
def inherit_environment(own: dict[str, Any], environment: dict[str, Any]) -> dict[str, Any]:
    """An app's or job's properties with its environment's."""
    return {**own, ENVIRONMENT: environment}


def _region(r: Reading) -> str | None:
    value = r.get("location")
    return value.lower() if isinstance(value, str) and not is_unknown(value) else None


def _profile_machine(kind: str, gpus: tuple[str, int]) -> Machine:
    gpu, count = gpus
    return Machine("azure", f"Container Apps {kind}", gpu, count)


@reads(types.CONTAINER_APPS_ENVIRONMENT)
def environment(r: Reading) -> tuple[GpuFootprint, ...] | None:
    """Its dedicated GPU profiles, a part each: nodes from ``minimumCount`` to
    ``maximumCount``. Serverless GPU profiles are read on what runs on them; a profile type
    gpufleet does not know is undetermined."""
    profiles = r.get("workloadProfiles")
    if is_unknown(profiles):
        r.unknown_value("workloadProfiles are")
        unread = r.footprint(cloud="azure", kind="Container Apps environment", is_template=False)
        return (unread,) if unread is not None else None
    parts = []
    for index, profile in enumerate(as_list(profiles)):
        p = r.within(profile)
        named = p.get("name")
        part = named if isinstance(named, str) and named else f"workloadProfiles[{index}]"
        kind = p.get("workloadProfileType")
        if kind is None:
            p.undetermined.append(f"its {part} profile sets no workloadProfileType")
            parts.append(_unsized(p, part, r))
            continue
        if p.unreadable(kind, f"{part}.workloadProfileType"):
            machine = None
        else:
            kind = str(kind).strip()
            gpus = DEDICATED_GPU_PROFILES.get(kind.lower())
            if gpus is None:
                if kind.lower() not in SERVERLESS_GPU_PROFILES and not _CPU_PROFILE.match(kind):
                    p.undetermined.append(
                        f"its workload profile type {kind!r} is not one gpufleet knows: whether "
                        "it holds GPUs is not known"
                    )
                    parts.append(_unsized(p, part, r))
                continue
            machine = _profile_machine(kind, gpus)
        least = p.number(p.get("minimumCount"), f"{part}.minimumCount", 0.0, whole=True)
        most = p.number(p.get("maximumCount"), f"{part}.maximumCount", None, whole=True)
        if most is None and p.get("maximumCount") is None:
            p.undetermined.append(f"its {part} profile sets no maximumCount")
        p.at_most(least, "minimumCount", most, "maximumCount")
        parts.append(
            p.footprint(
                cloud="azure",
                kind="Container Apps environment",
                is_template=False,
                machines=[machine],
                expected_units=least,
                max_units=most,
                scales_itself=True,
                market="on_demand",
                region=_region(r),
                notes=(_NOTE,),
                part=part,
            )
        )
    return tuple(p for p in parts if p is not None) or None


def _unsized(p: Reading, part: str, r: Reading) -> GpuFootprint | None:
    return p.footprint(
        cloud="azure",
        kind="Container Apps environment",
        is_template=False,
        region=_region(r),
        part=part,
    )


def _serverless_machine(r: Reading) -> Machine | None:
    """The GPU a replica of this app or job gets: its workload profile's, when that is a
    serverless GPU profile of its environment; None (nothing recorded) on a profile without
    GPUs or a dedicated one (whose nodes its environment holds); None, recorded, when that
    cannot be told."""
    name = r.get("workloadProfileName")
    if name is None or r.unreadable(name, "workloadProfileName"):
        return None  # no profile named: the Consumption profile
    name = str(name).strip()
    if name.lower() == CONSUMPTION:
        return None
    environment = r.get(ENVIRONMENT)
    if not isinstance(environment, dict):
        r.undetermined.append(
            f"its workload profile {name!r} is in an environment outside this stack (or one "
            "not known): whether it holds GPUs is not known"
        )
        return None
    profiles = get_path(environment, "workloadProfiles")
    if is_unknown(profiles):
        r.unknown_value("its environment's workloadProfiles are")
        return None
    kind = next(
        (
            get_path(p, "workloadProfileType")
            for p in as_list(profiles)
            if isinstance(p, dict) and str(p.get("name", "")).strip().lower() == name.lower()
        ),
        None,
    )
    if kind is None:
        r.undetermined.append(f"its workload profile {name!r} is not one its environment has")
        return None
    if r.unreadable(kind, f"its environment's {name} profile type"):
        return None
    gpus = SERVERLESS_GPU_PROFILES.get(str(kind).strip().lower())
    # A dedicated GPU profile's nodes, or an unknown type, are its environment's to report.
    return None if gpus is None else _profile_machine(str(kind).strip(), gpus)


@reads(types.CONTAINER_APP)
def container_app(r: Reading) -> GpuFootprint | None:
    """An app on a serverless GPU profile: a GPU per replica, from its minimum replicas to its
    maximum."""
    machine = _serverless_machine(r)
    scale = ("template", "scale")
    least = most = None
    if machine is not None:
        least = r.number(r.get(*scale, "minReplicas"), "minReplicas", 0.0, whole=True)
        most = r.number(r.get(*scale, "maxReplicas"), "maxReplicas", _MAX_REPLICAS, whole=True)
        r.at_most(least, "minReplicas", most, "maxReplicas")
    return r.footprint(
        cloud="azure",
        kind="Container App",
        is_template=False,
        machines=[machine],
        expected_units=least,
        max_units=most,
        scales_itself=True,
        market="on_demand",
        region=_region(r),
        notes=(_NOTE,),
    )


@reads(types.CONTAINER_APPS_JOB)
def container_apps_job(r: Reading) -> GpuFootprint | None:
    """A job on a serverless GPU profile: a GPU per replica of each execution. An event
    trigger runs up to its max executions at once; a schedule as many as its cron starts
    within a replica's timeout, for what its starts run a week; a manual job runs when
    someone starts it, outside the stack."""
    machine = _serverless_machine(r)
    if machine is None:
        return r.footprint(cloud="azure", kind="Container Apps job", is_template=False)
    config = ("configuration",)
    trigger = r.get(*config, "triggerType")
    if r.unreadable(trigger, "triggerType"):
        return r.footprint(cloud="azure", kind="Container Apps job", is_template=False)
    trigger = str(trigger or "Manual")
    key = {"event": "eventTriggerConfig", "schedule": "scheduleTriggerConfig"}.get(
        trigger.lower(), "manualTriggerConfig"
    )
    parallel = r.number(r.get(*config, key, "parallelism"), f"{key}.parallelism", 1.0, whole=True)
    timeout = r.number(
        r.get(*config, "replicaTimeout"), "replicaTimeout", None, whole=True, positive=True
    )
    fields: dict[str, Any] = {}
    if trigger.lower() == "event":
        scale = (*config, key, "scale")
        least = r.number(r.get(*scale, "minExecutions"), "minExecutions", 0.0, whole=True)
        most = r.number(
            r.get(*scale, "maxExecutions"), "maxExecutions", _MAX_EXECUTIONS, whole=True
        )
        r.at_most(least, "minExecutions", most, "maxExecutions")
        fields = {"expected_units": _times(least, parallel), "max_units": _times(most, parallel)}
    elif trigger.lower() == "schedule":
        fields = _scheduled(r, r.get(*config, key, "cronExpression"), timeout, parallel)
    else:
        # Started by hand (or by another service): a run's capacity, outside the stack.
        fields = {
            "expected_units": parallel,
            "max_units": parallel,
            "outside_stack": True,
            "run_hours": None if timeout is None else timeout / 3600.0,
        }
    return r.footprint(
        cloud="azure",
        kind="Container Apps job",
        is_template=False,
        machines=[machine],
        scales_itself=True,
        market="on_demand",
        region=_region(r),
        notes=(_NOTE,),
        **fields,
    )


def _times(count: float | None, parallel: float | None) -> float | None:
    return None if count is None or parallel is None else count * parallel


def _scheduled(
    r: Reading, cron: Any, timeout: float | None, parallel: float | None
) -> dict[str, Any]:
    """A scheduled job's size: the most executions its cron has running at once (each for up
    to its replica timeout), and, for a weekly cron, the replica-minutes its starts run a
    week."""
    if r.unreadable(cron, "cronExpression"):
        return {}
    if not isinstance(cron, str) or timeout is None or parallel is None:
        if not isinstance(cron, str):
            r.undetermined.append(f"its cronExpression {cron!r} is not a cron")
        return {}
    fields = cron.split()
    weekly = len(fields) == 5 and fields[2] == "*" and fields[3] == "*"
    try:
        # A cron that fires on days of the month fires no more often than on every day.
        starts = weekly_starts(" ".join([*fields[:2], "*", "*", *fields[4:]]))
    except ScheduleError as exc:
        r.undetermined.append(f"its cronExpression: {exc}")
        return {}
    if not starts:
        return {"expected_units": 0.0, "max_units": 0.0}
    minutes = max(1, math.ceil(timeout / 60))
    peak = _most_at_once(starts, minutes)
    return {
        "expected_units": 0.0,
        "max_units": min(peak * parallel, float(MAX_COUNT)),
        "weekly_use": len(starts) * minutes * parallel if weekly else None,
    }


def _most_at_once(starts: list[int], minutes: int) -> int:
    """The most runs of ``minutes`` each that overlap, starting at these minutes of every
    week."""
    weeks, rest = divmod(minutes, MINUTES_PER_WEEK)
    ordered = sorted(starts)
    doubled = ordered + [s + MINUTES_PER_WEEK for s in ordered]
    most, end = 0, 0
    for begin, start in enumerate(ordered):
        end = max(end, begin)
        while end < len(doubled) and doubled[end] < start + rest:
            end += 1
        most = max(most, end - begin)
    return weeks * len(ordered) + most

"""SageMaker hyperparameter tuning jobs: training jobs run in parallel, billed per run.

A tuning job runs up to ``resourceLimits.maxNumberOfTrainingJobs`` training jobs, at most
``maxParallelTrainingJobs`` at once, each on its definition's instances (``resourceConfig``:
a type and count, or instance groups; or ``hyperParameterTuningResourceConfig``: a type and
count, or instance configs to choose from) for at most its stopping condition's
``maxRuntimeInSeconds``. What it holds at once is the parallel jobs x the most instances a job
runs; one run lasts as many rounds of parallel jobs as its job count needs, each as long as a
job may run, or the tuning job's own ``maxRuntimeInSeconds`` when shorter. Several training
job definitions share the parallel jobs: each job is counted at the largest of them (a gate
errs high), on spot only when every definition uses managed spot training.
"""

from __future__ import annotations

import math
from typing import Any

from gpufleet import resource_types as types
from gpufleet.capacity.footprints.aws import (
    SAGEMAKER_DEFAULT_RUNTIME_SECONDS,
    SAGEMAKER_MAX_RUNTIME_SECONDS,
    _region,
)
from gpufleet.capacity.footprints.model import GpuFootprint, Machine
from gpufleet.capacity.footprints.reading import Reading, reads
from gpufleet.capacity.property_values import as_list, get_path, is_unknown

# How long a tuning job may run (ResourceLimits.MaxRuntimeInSeconds: at most 15,768,000 s,
# SageMaker API reference).
MAX_TUNING_SECONDS = 15_768_000.0


def _job_instances(
    r: Reading, definition: dict[str, Any], where: str
) -> tuple[list[Machine | None], float | None]:
    """The machines one training job of a definition may run on, and the most instances it
    runs."""
    machines: list[Machine | None] = []
    counts: list[float | None] = []
    for config_key, list_key in (
        ("resourceConfig", "instanceGroups"),
        ("hyperParameterTuningResourceConfig", "instanceConfigs"),
    ):
        config = definition.get(config_key)
        if config is None:
            continue
        here = f"{where}.{config_key}"
        if r.unreadable(config, here) or not isinstance(config, dict):
            counts.append(None)
            continue
        listed = config.get(list_key)
        if is_unknown(listed):
            r.unknown_value(f"{here}.{list_key} are")
            counts.append(None)
        entries = [e for e in as_list(listed) if isinstance(e, dict)]
        if entries and config.get("instanceType") is None:
            # A heterogeneous cluster (groups: their instances add up) or instance configs to
            # choose from (one of them per job).
            sizes = []
            for index, entry in enumerate(entries):
                at = f"{here}.{list_key}[{index}]"
                machines.append(r.machine("aws", entry.get("instanceType"), f"{at}.instanceType"))
                sizes.append(
                    r.number(entry.get("instanceCount"), f"{at}.instanceCount", None, whole=True)
                )
            known = [s for s in sizes if s is not None]
            if len(known) < len(sizes):
                counts.append(None)
            else:
                counts.append(sum(known) if list_key == "instanceGroups" else max(known))
        elif config.get("instanceType") is not None:
            machines.append(r.machine("aws", config.get("instanceType"), f"{here}.instanceType"))
            counts.append(
                r.number(config.get("instanceCount"), f"{here}.instanceCount", 1.0, whole=True)
            )
    if not counts:
        r.undetermined.append(f"{where} names no instances (resourceConfig)")
        return machines, None
    return machines, None if None in counts else max(c for c in counts if c is not None)


@reads(types.AWS_SAGEMAKER_TUNING_JOB)
def tuning_job(r: Reading) -> GpuFootprint | None:
    """A SageMaker hyperparameter tuning job: parallel training jobs x the instances one job uses,
    for its rounds of at most the job's runtime."""
    listed = r.get("trainingJobDefinitions")
    if is_unknown(listed):
        r.unknown_value("trainingJobDefinitions are")
    single = r.get("trainingJobDefinition")
    named = [("trainingJobDefinition", single)] if single is not None else []
    named += [(f"trainingJobDefinitions[{i}]", d) for i, d in enumerate(as_list(listed))]
    machines: list[Machine | None] = []
    per_job: float | None = 0.0
    job_seconds = 0.0
    spot = bool(named)
    for where, definition in named:
        if r.unreadable(definition, where) or not isinstance(definition, dict):
            per_job, spot = None, False
            continue
        found, count = _job_instances(r, definition, where)
        machines += found
        per_job = None if per_job is None or count is None else max(per_job, count)
        seconds = r.number(
            get_path(definition, "stoppingCondition", "maxRuntimeInSeconds"),
            f"{where}.stoppingCondition.maxRuntimeInSeconds",
            SAGEMAKER_DEFAULT_RUNTIME_SECONDS,
            positive=True,
            most=SAGEMAKER_MAX_RUNTIME_SECONDS,
        )
        job_seconds = max(job_seconds, seconds or SAGEMAKER_DEFAULT_RUNTIME_SECONDS)
        spot = spot and definition.get("enableManagedSpotTraining") is True
    limits = ("config", "resourceLimits")
    parallel = r.number(
        r.get(*limits, "maxParallelTrainingJobs"),
        "resourceLimits.maxParallelTrainingJobs",
        None,
        whole=True,
        positive=True,
    )
    if r.get(*limits, "maxParallelTrainingJobs") is None:
        r.undetermined.append("resourceLimits.maxParallelTrainingJobs is not set")
    jobs = r.number(
        r.get(*limits, "maxNumberOfTrainingJobs"),
        "resourceLimits.maxNumberOfTrainingJobs",
        None,
        whole=True,
        positive=True,
    )
    tuning_seconds = r.number(
        r.get(*limits, "maxRuntimeInSeconds"),
        "resourceLimits.maxRuntimeInSeconds",
        None,
        positive=True,
        most=MAX_TUNING_SECONDS,
    )
    run_seconds = None
    if jobs is not None and parallel is not None and job_seconds:
        run_seconds = math.ceil(jobs / parallel) * job_seconds
    if tuning_seconds is not None:
        run_seconds = tuning_seconds if run_seconds is None else min(run_seconds, tuning_seconds)
    if run_seconds is None and not r.undetermined:
        r.undetermined.append(
            "neither resourceLimits.maxNumberOfTrainingJobs nor maxRuntimeInSeconds bounds "
            "how long a run lasts"
        )
    held = None if parallel is None or per_job is None else parallel * per_job
    notes = ["its parallel training jobs counted at their largest, for its whole run"]
    if not spot and any(
        isinstance(d, dict) and d.get("enableManagedSpotTraining") is True for _, d in named
    ):
        notes.append("some of its training jobs run on spot: priced on-demand, the dearest")
    return r.footprint(
        cloud="aws",
        kind="SageMaker tuning job",
        is_template=False,
        machines=list(dict.fromkeys(machines)),
        expected_units=held,
        max_units=held,
        market="spot" if spot else "on_demand",
        region=_region(r),
        run_hours=(run_seconds or SAGEMAKER_DEFAULT_RUNTIME_SECONDS) / 3600.0,
        notes=tuple(notes),
    )

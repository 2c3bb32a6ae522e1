"""Rule ``sagemaker-spot-checkpointing``: managed-spot training — a training job, or each
training job definition of a hyperparameter tuning job — syncs checkpoints to S3 and may wait at
least as long as it runs (``MaxWaitTimeInSeconds >= MaxRuntimeInSeconds``), or an interruption
loses the work and the job cannot be scheduled."""

from __future__ import annotations

from typing import Any

from gpufleet import resource_types as types
from gpufleet.capacity.property_values import as_list, get_path, is_unknown
from gpufleet.policies.policy_builders import Findings, ResourceView, Settings, resource_policy
from gpufleet.policy_tags import COST


def check_sagemaker_checkpointing(resource: ResourceView, settings: Settings) -> Findings:
    findings = Findings()
    props = resource.props
    if resource.type != types.AWS_SAGEMAKER_TUNING_JOB:
        _check_job(findings, props, [], "")
        return findings
    definitions = [
        ("trainingJobDefinition", get_path(props, "trainingJobDefinition")),
        *(
            (f"trainingJobDefinitions[{i}]", d)
            for i, d in enumerate(as_list(get_path(props, "trainingJobDefinitions")))
        ),
    ]
    for where, definition in definitions:
        if is_unknown(definition):
            findings.unknown = ([where], definition)
        elif isinstance(definition, dict):
            _check_job(findings, definition, [where], f"{where}: ")
    return findings


def _check_job(findings: Findings, props: dict[str, Any], at: list[str], what: str) -> None:
    spot = props.get("enableManagedSpotTraining")
    if is_unknown(spot):
        findings.unknown = ([*at, "enableManagedSpotTraining"], spot)
        return
    if spot is not True:
        return
    uri = get_path(props, "checkpointConfig", "s3Uri")
    if uri is None or uri == "":
        findings.violate(
            f"{what}managed spot training without checkpointConfig.s3Uri: an interruption "
            "restarts the job from zero"
        )
    max_run = get_path(props, "stoppingCondition", "maxRuntimeInSeconds")
    max_wait = get_path(props, "stoppingCondition", "maxWaitTimeInSeconds")
    if max_wait is None:
        findings.violate(
            f"{what}managed spot training needs stoppingCondition.maxWaitTimeInSeconds"
        )
    elif is_unknown(max_wait) or is_unknown(max_run):
        findings.unknown = (
            [*at, "stoppingCondition"],
            max_wait if is_unknown(max_wait) else max_run,
        )
    elif _number(max_run) is not None and _number(max_wait) is None:
        findings.violate(f"{what}stoppingCondition.maxWaitTimeInSeconds is not a number")
    elif (
        (run := _number(max_run)) is not None
        and (wait := _number(max_wait)) is not None
        and wait < run
    ):
        findings.violate(
            f"{what}maxWaitTimeInSeconds {wait:g} is less than maxRuntimeInSeconds "
            f"{run:g}; SageMaker requires wait >= run"
        )


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        return float(value)
    except ValueError:
        return None


POLICY = resource_policy(
    "sagemaker-spot-checkpointing",
    "SageMaker managed spot training checkpoints to S3 and waits at least as long as it runs.",
    check_sagemaker_checkpointing,
    config={},
    display_name="SageMaker spot training checkpoints",
    tags=[COST],
    applies_to={types.AWS_TRAINING_JOB, types.AWS_SAGEMAKER_TUNING_JOB},
)

"""Rule ``sagemaker-spot-checkpointing``: a managed-spot training job syncs checkpoints to S3
and may wait at least as long as it runs (``MaxWaitTimeInSeconds >= MaxRuntimeInSeconds``), or
an interruption loses the work and the job cannot be scheduled."""

from __future__ import annotations

from gpufleet import resource_types as types
from gpufleet.capacity.property_values import get_path, is_unknown
from gpufleet.policies.policy_builders import Findings, ResourceView, Settings, resource_policy
from gpufleet.policy_tags import COST


def check_sagemaker_checkpointing(resource: ResourceView, settings: Settings) -> Findings:
    findings = Findings()
    props = resource.props
    spot = props.get("enableManagedSpotTraining")
    if is_unknown(spot):
        findings.unknown = (["enableManagedSpotTraining"], spot)
        return findings
    if spot is not True:
        return findings
    uri = get_path(props, "checkpointConfig", "s3Uri")
    if uri is None or uri == "":
        findings.violate(
            "managed spot training without checkpointConfig.s3Uri: an interruption restarts "
            "the job from zero"
        )
    max_run = get_path(props, "stoppingCondition", "maxRuntimeInSeconds")
    max_wait = get_path(props, "stoppingCondition", "maxWaitTimeInSeconds")
    if max_wait is None:
        findings.violate("managed spot training needs stoppingCondition.maxWaitTimeInSeconds")
    elif is_unknown(max_wait) or is_unknown(max_run):
        findings.unknown = (["stoppingCondition"], max_wait if is_unknown(max_wait) else max_run)
    elif max_run is not None and float(max_wait) < float(max_run):
        findings.violate(
            f"maxWaitTimeInSeconds {max_wait:g} is less than maxRuntimeInSeconds {max_run:g}; "
            "SageMaker requires wait >= run"
        )
    return findings


POLICY = resource_policy(
    "sagemaker-spot-checkpointing",
    "SageMaker managed spot training checkpoints to S3 and waits at least as long as it runs.",
    check_sagemaker_checkpointing,
    config={},
    display_name="SageMaker spot training checkpoints",
    tags=[COST],
    applies_to={types.AWS_TRAINING_JOB},
)

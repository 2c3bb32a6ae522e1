"""Rules: GPU spend that is easy to get wrong.

- ``training-on-spot``: training capacity runs on spot / low-priority (dev: mandatory).
  Training is a SageMaker training job, or capacity tagged ``trainingTag`` (gpufleet's stacks
  tag every resource with ``workload-kind``); groups are judged by their own market settings
  or their template's.
- ``sagemaker-spot-checkpointing``: a managed-spot training job syncs checkpoints to S3 and may
  wait at least as long as it runs (``MaxWaitTimeInSeconds >= MaxRuntimeInSeconds``), or an
  interruption loses the work and the job cannot be scheduled.
- ``reservation-end-date``: capacity reservations end (outside prod): an AWS capacity
  reservation with ``endDateType: limited``, a GCP reservation with ``deleteAtTime`` or
  ``deleteAfterDuration``. Azure capacity reservations cannot end by themselves, so outside
  prod they fail this rule; Capacity Blocks always end and pass.
- ``aml-scale-to-zero``: Azure ML compute clusters scale to zero nodes when idle (outside prod).
"""

from __future__ import annotations

from pulumi_policy import ResourceValidationPolicy, StackValidationPolicy

from gpufleet.policies.policy_builders import (
    Findings,
    ResourceView,
    Settings,
    StackResource,
    resource_policy,
    stack_policy,
)
from gpufleet.policies.properties import get_path, is_unknown
from gpufleet.policies.stack_capacity import stack_capacity
from gpufleet.policies.taggable import tag_entries, tag_property
from gpufleet.tag_keys import WORKLOAD_KIND

TRAINING_JOB = "aws:sagemaker/trainingJob:TrainingJob"
AML_COMPUTE = "azure-native:machinelearningservices:Compute"
AWS_RESERVATION = "aws:ec2/capacityReservation:CapacityReservation"
GCP_RESERVATION = "gcp:compute/reservation:Reservation"
AZURE_RESERVATION = "azure-native:compute:CapacityReservation"

TRAINING_CONFIG = {
    "trainingTag": {
        "type": "object",
        "properties": {
            "key": {"type": "string", "minLength": 1},
            "value": {"type": "string", "minLength": 1},
        },
        "required": ["key", "value"],
        "additionalProperties": False,
        "default": {"key": WORKLOAD_KIND, "value": "training"},
        "description": "The tag (GCP label) that marks training capacity.",
    },
}


def _tag_value(resource: StackResource | None, key: str) -> str | None:
    if resource is None:
        return None
    prop = tag_property(resource.type)
    if prop is None:
        return None
    entries, _ = tag_entries(prop, resource.props, resource.provider_props)
    value = entries.get(prop.key_for(key))
    return value if isinstance(value, str) else None


def check_training_on_spot(resources: list[StackResource], settings: Settings) -> Findings:
    findings = Findings()
    tag = settings["trainingTag"]
    for item in stack_capacity(resources):
        r, footprint = item.resource, item.footprint
        training = r.type == TRAINING_JOB or tag["value"] in (
            _tag_value(r, tag["key"]),
            _tag_value(item.template, tag["key"]),
        )
        if not training or footprint.pricing in ("spot", "reserved-consumer"):
            continue
        pricing = footprint.pricing or "on-demand"
        findings.violate(
            f"training {footprint.kind} {r.name} runs {pricing}; training here must use "
            "spot / low-priority capacity (with checkpoints)",
            r.urn,
        )
    return findings


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


def check_reservation_end(resource: ResourceView, settings: Settings) -> Findings:
    findings = Findings()
    props = resource.props
    if resource.type == AWS_RESERVATION:
        end_type = props.get("endDateType")
        if is_unknown(end_type) or is_unknown(props.get("endDate")):
            findings.unknown = (["endDate"], props.get("endDate") or end_type)
        elif end_type != "limited" or not props.get("endDate"):
            findings.violate(
                "capacity reservation without an end date (endDateType: limited, endDate) "
                "bills until someone cancels it"
            )
    elif resource.type == GCP_RESERVATION:
        if props.get("deleteAtTime") is None and props.get("deleteAfterDuration") is None:
            findings.violate(
                "reservation without deleteAtTime or deleteAfterDuration bills until deleted"
            )
    elif resource.type == AZURE_RESERVATION:
        findings.violate(
            "Azure capacity reservations have no end date; reserve capacity in prod only"
        )
    return findings


def check_aml_scale_to_zero(resource: ResourceView, settings: Settings) -> Findings:
    findings = Findings()
    if get_path(resource.props, "properties", "computeType") != "AmlCompute":
        return findings
    minimum = get_path(resource.props, "properties", "properties", "scaleSettings", "minNodeCount")
    if is_unknown(minimum):
        findings.unknown = (["properties", "properties", "scaleSettings", "minNodeCount"], minimum)
    elif minimum is not None and float(minimum) > 0:
        findings.violate(
            f"Azure ML cluster keeps {minimum:g} nodes when idle; set scaleSettings.minNodeCount "
            "to 0 outside prod"
        )
    return findings


def policies() -> list[ResourceValidationPolicy | StackValidationPolicy]:
    return [
        stack_policy(
            "training-on-spot",
            "Training capacity runs on spot / low-priority VMs.",
            check_training_on_spot,
            config=TRAINING_CONFIG,
            remediation_steps="Use SageMaker managed spot, a spot ASG mix (0% on-demand), GCP "
            "provisioningModel SPOT, Azure priority Spot / vmPriority LowPriority.",
        ),
        resource_policy(
            "sagemaker-spot-checkpointing",
            "SageMaker managed spot training checkpoints to S3 and waits at least as long as "
            "it runs.",
            check_sagemaker_checkpointing,
            config={},
            applies_to={TRAINING_JOB},
        ),
        resource_policy(
            "reservation-end-date",
            "Capacity reservations have an end date.",
            check_reservation_end,
            config={},
            applies_to={AWS_RESERVATION, GCP_RESERVATION, AZURE_RESERVATION},
        ),
        resource_policy(
            "aml-scale-to-zero",
            "Azure ML compute clusters scale to zero when idle.",
            check_aml_scale_to_zero,
            config={},
            applies_to={AML_COMPUTE},
        ),
    ]

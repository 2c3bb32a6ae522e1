"""Rule ``training-on-spot``: training capacity runs on spot / low-priority (mandatory in dev).

Training is a SageMaker training or tuning job, or capacity tagged ``trainingTag`` (gpufleet's
stacks tag every resource with its workload's kind); groups are judged by their own market
settings or their template's. Capacity running inside a reservation is paid for by the
reservation. A generated stack's workload whose plan puts it off spot (a part priced on-demand
or reserved in ``gpufleet:workloads``, the reviewed stack config: the spec says it cannot be
interrupted, or spot has no offer for it, within the environment's ``allow_on_demand``) runs
as planned, and is not asked to run on spot.
"""

from __future__ import annotations

from gpufleet import resource_types as types
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.capacity.taggable import tag_entries, tag_property
from gpufleet.policies.policy_builders import Findings, Settings, stack_policy
from gpufleet.policies.shared_reads import stack_capacity
from gpufleet.policies.stack_limits import stack_limits
from gpufleet.policy_tags import COST
from gpufleet.tag_keys import WORKLOAD, WORKLOAD_KIND

CONFIG = {
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


# Jobs that are training whatever they are tagged.
_TRAINING_TYPES = frozenset((types.AWS_TRAINING_JOB, types.AWS_SAGEMAKER_TUNING_JOB))


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
    planned = stack_limits().planned_off_spot
    for item in stack_capacity(resources):
        r, footprint = item.resource, item.footprint
        training = r.type in _TRAINING_TYPES or tag["value"] in (
            _tag_value(r, tag["key"]),
            _tag_value(item.template, tag["key"]),
        )
        if not training:
            continue
        workload = _tag_value(r, WORKLOAD) or _tag_value(item.template, WORKLOAD)
        if workload in planned:
            continue
        # A group of two versions runs both: its fixed one may be on-demand under a spot rest.
        share = footprint.fixed_share
        for part, what in ((footprint, ""), (share, "'s fixed version")):
            if part is None or part.market in ("spot", "in_reservation"):
                continue
            findings.violate(
                f"training {footprint.kind} {r.name}{what} runs {part.market or 'on_demand'}; "
                "training here must use spot / low-priority capacity (with checkpoints)",
                r.urn,
            )
    return findings


POLICY = stack_policy(
    "training-on-spot",
    "Training capacity runs on spot / low-priority VMs.",
    check_training_on_spot,
    config=CONFIG,
    display_name="Training on spot capacity",
    tags=[COST],
    remediation_steps="Use SageMaker managed spot, a spot ASG mix (0% on-demand), GCP "
    "provisioningModel SPOT, Azure priority Spot / vmPriority LowPriority.",
)

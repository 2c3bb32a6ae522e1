"""Rule ``gpu-instance-size``: GPU machines no larger than the environment allows, and only of
allowed GPU types.

Every resource that names a machine is looked at — templates, instances, fleets and their
overrides, groups, reservations, training jobs — through its GPU footprint. The allowed GPU
types are the policy config's ``allowedGpuTypes`` when it sets them, else the environment's
``allowed_gpus`` from the spec (``gpufleet:limits`` in a generated stack's config), else any.
"""

from __future__ import annotations

from gpufleet.capacity.footprints import GPU_RESOURCE_TYPES
from gpufleet.planner.gpus import normalize_gpu_name
from gpufleet.policies.policy_builders import Findings, ResourceView, Settings, resource_policy
from gpufleet.policies.shared_reads import shared_gpu_footprints
from gpufleet.policies.stack_limits import stack_limits
from gpufleet.policy_tags import COST

CONFIG = {
    "maxGpusPerInstance": {"type": "integer", "minimum": 0, "default": 8},
    "allowedGpuTypes": {
        "type": "array",
        "items": {"type": "string", "minLength": 1},
        "description": "GPU models allowed (catalog names: H100, A100-80GB, L4...); [] = any. "
        "Default: the spec's allowed_gpus for the environment, else any.",
    },
}


def check_instance_size(resource: ResourceView, settings: Settings) -> Findings:
    findings = Findings()
    footprints = shared_gpu_footprints(resource)
    if not footprints:
        return findings
    configured = settings.get("allowedGpuTypes")
    names = configured if configured is not None else stack_limits().allowed_gpus or ()
    allowed = {normalize_gpu_name(g) or g for g in names}
    limit = settings["maxGpusPerInstance"]
    machines = dict.fromkeys(m for f in footprints for m in f.machines)
    for machine in machines:
        if machine.gpus > limit:
            findings.violate(
                f"{machine.instance_type} has {machine.gpus} x {machine.gpu_name}; this "
                f"environment allows at most {limit:g} GPUs per instance"
            )
        if allowed and machine.gpu_name not in allowed:
            findings.violate(
                f"{machine.instance_type} carries {machine.gpu_name}; allowed here: "
                f"{', '.join(sorted(allowed))}"
            )
    return findings


POLICY = resource_policy(
    "gpu-instance-size",
    "GPU machines are no larger than the environment allows, and of allowed GPU types.",
    check_instance_size,
    config=CONFIG,
    display_name="GPU machines of allowed size and type",
    tags=[COST],
    applies_to=GPU_RESOURCE_TYPES,
    remediation_steps="Pick a smaller instance type (gpufleet plan picks one that fits "
    "the workload), or raise maxGpusPerInstance in the environment's policy config.",
)

"""Rules: GPU resources sized for the environment.

- ``gpu-instance-size``: no machine with more GPUs than ``maxGpusPerInstance``, and only the
  ``allowedGpuTypes`` (an empty list allows any), on every resource that names a machine:
  templates, instances, fleets and their overrides, groups, reservations, training jobs.
- ``gpu-fleet-size``: no fleet / group / cluster / reservation / training job able to hold more
  than ``maxGpusPerFleet`` GPUs (its most instances x GPUs per machine).
- ``gpu-size-undetermined`` (advisory): GPU resources whose machine or count cannot be
  determined — unknown during a preview, or a GPU-looking type the catalog does not know — are
  listed, never silently passed.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, StackValidationPolicy

from gpufleet.planner.gpus import normalize_gpu_name
from gpufleet.policies.gpu_footprint import GPU_RESOURCE_TYPES, shared_gpu_footprint
from gpufleet.policies.policy_builders import (
    Findings,
    ResourceView,
    Settings,
    StackResource,
    resource_policy,
    stack_policy,
)
from gpufleet.policies.stack_capacity import stack_footprints

INSTANCE_CONFIG = {
    "maxGpusPerInstance": {"type": "integer", "minimum": 0, "default": 8},
    "allowedGpuTypes": {
        "type": "array",
        "items": {"type": "string", "minLength": 1},
        "default": [],
        "description": "GPU models allowed (catalog names: H100, A100-80GB, L4...); [] = any.",
    },
}
FLEET_CONFIG = {"maxGpusPerFleet": {"type": "integer", "minimum": 0, "default": 64}}


def check_instance_size(resource: ResourceView, settings: Settings) -> Findings:
    findings = Findings()
    footprint = shared_gpu_footprint(resource.type, resource.props, resource.provider_props)
    if footprint is None:
        return findings
    allowed = {normalize_gpu_name(g) or g for g in settings["allowedGpuTypes"]}
    limit = settings["maxGpusPerInstance"]
    for machine in footprint.machines:
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


def check_fleet_size(resources: list[StackResource], settings: Settings) -> Findings:
    findings = Findings()
    limit = settings["maxGpusPerFleet"]
    for item in stack_footprints(resources):
        footprint = item.footprint
        total = footprint.total_gpus
        if footprint.is_template or total is None or total <= limit:
            continue
        machine = max(footprint.machines, key=lambda m: m.gpus)
        findings.violate(
            f"{footprint.kind} {item.resource.name} can hold {total:g} GPUs "
            f"({footprint.instances:g} x {machine.instance_type}, {machine.gpus} x "
            f"{machine.gpu_name} each); this environment allows at most {limit:g} per fleet",
            item.resource.urn,
        )
    return findings


def check_undetermined(resources: list[StackResource], settings: Settings) -> Findings:
    findings = Findings()
    for item in stack_footprints(resources):
        footprint = item.footprint
        if footprint.undetermined:
            findings.violate(
                f"{footprint.kind} {item.resource.name}: GPU size not determined: "
                f"{'; '.join(footprint.undetermined)}",
                item.resource.urn,
            )
    return findings


def policies() -> list[ResourceValidationPolicy | StackValidationPolicy]:
    return [
        resource_policy(
            "gpu-instance-size",
            "GPU machines are no larger than the environment allows, and of allowed GPU types.",
            check_instance_size,
            config=INSTANCE_CONFIG,
            applies_to=GPU_RESOURCE_TYPES,
            remediation_steps="Pick a smaller instance type (gpufleet plan picks one that fits "
            "the workload), or raise maxGpusPerInstance in the environment's policy config.",
        ),
        stack_policy(
            "gpu-fleet-size",
            "Fleets, groups, clusters, reservations and training jobs hold no more GPUs than "
            "the environment allows.",
            check_fleet_size,
            config=FLEET_CONFIG,
            remediation_steps="Lower the group's max size / target size / node count, or raise "
            "maxGpusPerFleet in the environment's policy config.",
        ),
        stack_policy(
            "gpu-size-undetermined",
            "GPU resources whose size cannot be determined are reported, not ignored.",
            check_undetermined,
            config={},
            enforcement_level=EnforcementLevel.ADVISORY,
        ),
    ]

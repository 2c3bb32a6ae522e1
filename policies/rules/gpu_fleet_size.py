"""Rule ``gpu-fleet-size``: no fleet, group, cluster, reservation or training job able to hold
more than ``maxGpusPerFleet`` GPUs: its max size, in instances of whichever of its machines
holds the most GPUs (a group sized in weighted units, such as GPUs, launches max size / weight
instances, rounded up); groups launched from a template are resolved through their property
dependencies."""

from __future__ import annotations

from gpufleet.capacity.stack_capacity import StackCapacity
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.policies.policy_builders import Findings, Settings, stack_policy
from gpufleet.policies.shared_reads import stack_footprints
from gpufleet.policy_tags import COST

CONFIG = {"maxGpusPerFleet": {"type": "integer", "minimum": 0, "default": 64}}


def check_fleet_size(resources: list[StackResource], settings: Settings) -> Findings:
    findings = Findings()
    limit = settings["maxGpusPerFleet"]
    # A resource of several parts (a cluster's node pools) is one fleet: its parts add up.
    by_resource: dict[str, list[StackCapacity]] = {}
    for item in stack_footprints(resources):
        if not item.footprint.is_template and item.footprint.max_gpus is not None:
            by_resource.setdefault(item.resource.urn, []).append(item)
    for items in by_resource.values():
        total = sum(item.footprint.max_gpus or 0.0 for item in items)
        if total <= limit:
            continue
        holding = " + ".join(
            f"{count:g} x {machine.instance_type}, {machine.gpus} x {machine.gpu_name} each"
            + (f" ({item.footprint.part})" if item.footprint.part else "")
            for item in items
            for machine, count in item.footprint.largest_holding()
            if count
        )
        first = items[0]
        what = f"{first.footprint.kind} {first.resource.name}"
        if first.footprint.part is not None:
            what = f"{first.resource.name} ({first.footprint.kind}s)"
        findings.violate(
            f"{what} can hold {total:g} GPUs ({holding}); this environment allows at most "
            f"{limit:g} per fleet",
            first.resource.urn,
        )
    return findings


POLICY = stack_policy(
    "gpu-fleet-size",
    "Fleets, groups, clusters, reservations and training jobs hold no more GPUs than "
    "the environment allows.",
    check_fleet_size,
    config=CONFIG,
    display_name="GPUs per fleet within the limit",
    tags=[COST],
    remediation_steps="Lower the group's max size / target size / node count, or raise "
    "maxGpusPerFleet in the environment's policy config.",
)

"""Rule ``gpu-fleet-size``: no fleet, group, cluster, reservation or training job able to hold
more than ``maxGpusPerFleet`` GPUs, and no stack more than ``maxGpusPerStack``.

A fleet's GPUs are its max size, in instances of whichever of its machines holds the most
(a group sized in weighted units, such as GPUs, launches max size / weight instances, rounded
up); groups launched from a template are resolved through their property dependencies; the
parts of one resource (a cluster's node pools) and the members of one fleet (a flexible scale
set's VMs, an unmanaged instance group's, ``capacity.fleets``) add up to one fleet. The stack's
GPUs are every fleet at its max size at once — groups parked at zero count for what they may
hold, so a limit per fleet cannot be met by many small groups — with capacity that runs in a
reservation of the stack counted once, with the reservation.
"""

from __future__ import annotations

from gpufleet.capacity.fleets import fleets
from gpufleet.capacity.stack_capacity import StackCapacity
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.policies.policy_builders import Findings, Settings, stack_policy
from gpufleet.policies.shared_reads import stack_footprints
from gpufleet.policy_tags import COST

CONFIG = {
    "maxGpusPerFleet": {"type": "integer", "minimum": 0, "default": 64},
    "maxGpusPerStack": {
        "type": "integer",
        "minimum": 0,
        "description": "Most GPUs the whole stack may hold, every group at its max size. "
        "Default: no limit.",
    },
}


def check_fleet_size(resources: list[StackResource], settings: Settings) -> Findings:
    findings = Findings()
    limit = settings["maxGpusPerFleet"]
    member_of = fleets(resources)
    by_urn = {r.urn: r for r in resources}
    by_fleet: dict[str, list[StackCapacity]] = {}
    for item in stack_footprints(resources):
        if not item.footprint.is_template and item.footprint.max_gpus is not None:
            fleet = member_of.get(item.resource.urn, item.resource.urn)
            by_fleet.setdefault(fleet, []).append(item)
    # Capacity running in a reservation of the stack holds the reservation's GPUs, counted
    # with the reservation: the stack's GPUs count them once.
    total = sum(
        item.footprint.max_gpus_beyond_reservations or 0.0
        for items in by_fleet.values()
        for item in items
    )
    for fleet, items in by_fleet.items():
        gpus = sum(item.footprint.max_gpus or 0.0 for item in items)
        if gpus <= limit:
            continue
        findings.violate(
            f"{_fleet_name(fleet, items, by_urn)} can hold {gpus:g} GPUs ({_holding(items)}); "
            f"this environment allows at most {limit:g} per fleet",
            fleet,
            advisory=all(_unsettled(item) for item in items),
        )
    stack_limit = settings.get("maxGpusPerStack")
    if stack_limit is not None and total > stack_limit:
        # Above the limit only through what a preview cannot settle yet (which version of a
        # group runs in its reservation): advisory, as Pulumi treats unknowns.
        settled = sum(
            item.footprint.max_gpus_beyond_reservations or 0.0
            for items in by_fleet.values()
            for item in items
            if not _unsettled(item)
        )
        largest = sorted(
            by_fleet.items(), key=lambda kv: -sum(i.footprint.max_gpus or 0.0 for i in kv[1])
        )[:3]
        named = ", ".join(
            f"{_fleet_name(fleet, items, by_urn)} "
            f"{sum(i.footprint.max_gpus or 0.0 for i in items):g}"
            for fleet, items in largest
        )
        findings.violate(
            f"the stack can hold {total:g} GPUs, every group at its max size "
            f"({len(by_fleet)} fleets; largest: {named}); this environment allows at most "
            f"{stack_limit:g} per stack"
            + (" (with values unknown during preview)" if settled <= stack_limit else ""),
            advisory=settled <= stack_limit,
        )
    return findings


def _unsettled(item: StackCapacity) -> bool:
    """Whether what it may hold depends on values only a preview does not know yet."""
    return item.footprint.unknown and bool(item.footprint.undetermined)


def _fleet_name(fleet: str, items: list[StackCapacity], by_urn: dict[str, StackResource]) -> str:
    first = items[0]
    if fleet != first.resource.urn:
        owner = by_urn.get(fleet)
        name = owner.name if owner is not None else fleet.rsplit("::", 1)[-1]
        return f"{name} (a fleet of {len(items)} members)"
    if first.footprint.part is not None:
        return f"{first.resource.name} ({first.footprint.kind}s)"
    return f"{first.footprint.kind} {first.resource.name}"


def _holding(items: list[StackCapacity]) -> str:
    held = [
        f"{count:g} x {machine.instance_type}, {machine.gpus} x {machine.gpu_name} each"
        + (f" ({item.footprint.part})" if item.footprint.part else "")
        for item in items
        for machine, count in item.footprint.largest_holding()
        if count
    ]
    if len(held) > 4:
        held = [*held[:3], f"... {len(held) - 3} more"]
    return " + ".join(held)


POLICY = stack_policy(
    "gpu-fleet-size",
    "Fleets, groups, clusters, reservations and training jobs hold no more GPUs than "
    "the environment allows, nor does the stack.",
    check_fleet_size,
    config=CONFIG,
    display_name="GPUs per fleet and per stack within the limits",
    tags=[COST],
    remediation_steps="Lower the group's max size / target size / node count, or raise "
    "maxGpusPerFleet (or maxGpusPerStack) in the environment's policy config.",
)

"""What GPU capacity a resource describes: machines, how many, bought how, where.

``read_gpu_footprint(type, props, provider_props)`` understands the resources through which GPU
capacity is bought on the three clouds, whether written by gpufleet's components or by hand:
templates (machines, no count) and capacity (machines x count: expected and at most). The
readers live one module per cloud (``aws``, ``gcp``, ``azure``), registered by resource type
(``reading.reads``); what a footprint is, and the catalog machines are looked up in, is
``model``.

Capacity whose machine comes from a template (an ASG's launch template, a MIG's instance
template) names the properties that reference it; ``resolve_template`` fills it in from the
stack's property dependencies, which stay known in a preview even when the template's id does
not. GPUs per machine come from the shipped catalog; a machine type that looks like a GPU type
but is not in the catalog, or is unknown during a preview, is "undetermined", never ignored.
A type with no reader that names a GPU machine anyway is caught by ``named_anywhere``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

# Imported for their @reads registrations.
from gpufleet.capacity.footprints import (  # noqa: F401
    aws,
    aws_app_autoscaling,
    aws_beanstalk,
    aws_codebuild,
    aws_emr,
    aws_sagemaker_tuning,
    azure,
    azure_container_apps,
    coverage,
    gcp,
    gcp_dataproc,
)
from gpufleet.capacity.footprints.coverage import HOLDS_DATA, NOT_GPU_CAPACITY
from gpufleet.capacity.footprints.model import GpuFootprint, MachineCatalog, shipped_machine_catalog
from gpufleet.capacity.footprints.named_anywhere import read_named_anywhere
from gpufleet.capacity.footprints.reading import READERS, SCALERS, TAG_PATHS, Reading, Scaler
from gpufleet.capacity.footprints.weekly_use import bounded_use, set_point_use, window_use

GPU_RESOURCE_TYPES = frozenset(READERS)


def read_scaler(type_: str, props: dict[str, Any]) -> Scaler | None:
    """What a resource that sizes a group says of the group's size; None for other types."""
    reader = SCALERS.get(type_)
    if reader is None:
        return None
    reading = Reading(props, {}, shipped_machine_catalog())
    scaler = reader(reading)
    if scaler is not None and scaler.undetermined and reading.only_unknown:
        scaler = replace(scaler, unknown=True)
    return scaler


def apply_scaler(footprint: GpuFootprint, scaler: Scaler) -> GpuFootprint:
    """A group's footprint with the size its scaler gives it, and what its schedule (if the
    scaler has one and is on) runs it."""
    if scaler.adds:
        return _raised(apply_scaler(footprint, replace(scaler, adds=0.0)), scaler.adds)
    footprint = _in_unit(footprint, scaler)
    undetermined = tuple(dict.fromkeys((*footprint.undetermined, *scaler.undetermined)))
    # Only unknowns when what each could not determine is only unknowns.
    unknown = (
        bool(undetermined)
        and (footprint.unknown or not footprint.undetermined)
        and (scaler.unknown or not scaler.undetermined)
    )
    declared = footprint.declared_minutes or scaler.declared_minutes
    if footprint.schedules_suspended:
        # Its scheduled actions do not run: what they would set does not happen.
        scaler = replace(
            scaler, set_points=(), min_points=(), max_points=(), raises_min=None,
            raises_desired=None, sets_size=False, schedule_unread=None,
        )  # fmt: skip
    if scaler.active:
        least, most = footprint.expected_units, footprint.max_units
        floor = footprint.min_units if footprint.min_units is not None else least
        notes = footprint.notes
        if scaler.bounds:
            least, most = scaler.least, scaler.most
            floor = least
        else:
            if scaler.most is not None and most is not None:
                most = max(most, scaler.most)  # an action that raises the group's size
            least, floor, raised = _raised_for_good(scaler, least, floor)
            notes = (*notes, *raised)
        unread = _unread(scaler)
        if unread:
            notes = (*notes, f"its schedule is not read: {unread}")
        never_in = footprint.never_scales_in
        scales_in = scaler.scales_in or (
            scaler.schedule_scales_in and not footprint.schedules_suspended
        )
        if never_in is None and scaler.scales_out and not scales_in:
            never_in = scaler.direction_unread or (
                "nothing scales it in (its scaling policies only add capacity)"
            )
        if never_in is None and unread and scaler.sets_size:
            # What it sets, and for how long, is not known: it may hold the group up.
            never_in = f"its schedule sets its size and is not read ({unread})"
        return replace(
            footprint,
            expected_units=least,
            max_units=most,
            undetermined=undetermined,
            size_reasons=(*footprint.size_reasons, *scaler.undetermined),
            unknown=unknown,
            declared_minutes=declared,
            scales_itself=True,
            never_scales_in=never_in,
            weekly_use=None if unread else scheduled_use(scaler, least, most, floor),
            # A schedule of bounds only, or sizes set on load above it: runs (or load) add
            # their declared use above what the schedule holds.
            runs_above_schedule=not (scaler.set_points or scaler.windows) or scaler.load_scaling,
            notes=notes,
        )
    given = footprint.expected_units
    most = scaler.most if scaler.bounds else footprint.max_units
    if given is not None and most is not None:
        most = max(most, given)
    return replace(
        footprint,
        max_units=most,
        undetermined=undetermined,
        size_reasons=(*footprint.size_reasons, *scaler.undetermined),
        unknown=unknown,
        declared_minutes=declared,
    )


def _raised(footprint: GpuFootprint, adds: float) -> GpuFootprint:
    """A footprint with instances added on top of its size, expected and at most (they run
    while a resize request or a standby pool holds them)."""
    return replace(
        footprint,
        expected_units=None
        if footprint.expected_units is None
        else footprint.expected_units + adds,
        max_units=None if footprint.max_units is None else footprint.max_units + adds,
        # Its own schedule covered the size without them: what they add is not scheduled.
        weekly_use=None,
    )


def _in_unit(footprint: GpuFootprint, scaler: Scaler) -> GpuFootprint:
    """The footprint counted in the unit its scaler's sizes are in (EMR managed scaling in
    vCPUs over instance groups): its own sizes converted at its largest machine's count of
    that unit, an upper bound where its machines differ."""
    unit = scaler.capacity_unit
    if unit is None or unit == footprint.capacity_unit:
        return footprint
    if not footprint.machines:
        why = f"its scaler counts in {unit} and its machines are not known"
        return replace(footprint, undetermined=(*footprint.undetermined, why), unknown=False)
    converted = replace(footprint, capacity_unit=unit, weights=())
    per_instance = max(weight for _, weight in converted.options())
    factor = per_instance / min(weight for _, weight in footprint.options())
    return replace(
        converted,
        expected_units=None
        if footprint.expected_units is None
        else footprint.expected_units * factor,
        max_units=None if footprint.max_units is None else footprint.max_units * factor,
    )


def _unread(scaler: Scaler) -> str | None:
    """Why the scaler's schedule is not read, if it is not."""
    if scaler.schedule_unread:
        return scaler.schedule_unread
    if len(scaler.time_zones) > 1:
        return f"its entries are in several time zones ({', '.join(sorted(scaler.time_zones))})"
    if scaler.windows and scaler.set_points:
        return "it holds windows and sets sizes both"
    return None


def _raised_for_good(
    scaler: Scaler, desired: float | None, floor: float | None
) -> tuple[float | None, float | None, tuple[str, ...]]:
    """A group's desired and min sizes after the one-off actions that raise them for good."""
    notes: list[str] = []
    if scaler.raises_min is not None and (floor is None or scaler.raises_min > floor):
        floor = scaler.raises_min
        notes.append(f"a one-off scheduled action raises its min size to {floor:g} for good")
    if scaler.raises_desired is not None and (desired is None or scaler.raises_desired > desired):
        desired = scaler.raises_desired
        notes.append(f"a one-off scheduled action sets its desired size to {desired:g}")
    if desired is not None and floor is not None and floor > desired:
        desired = floor
    return desired, floor, tuple(notes)


def scheduled_use(
    scaler: Scaler, least: float | None, most: float | None, floor: float | None = None
) -> float | None:
    """Capacity-unit minutes a week its (readable) schedule runs a group within ``least`` and
    ``most``; None without one. Bounds below the group's own give the use of its first units
    (a version of fixed size): the size in force, capped. ``floor``: the group's own min size
    where its desired size (``least``) is apart from it, which a schedule setting the desired
    size cannot go below."""
    if least is None or most is None:
        return None
    floor = least if floor is None else floor
    if scaler.min_points or scaler.max_points:
        return bounded_use(
            scaler.set_points, scaler.min_points, scaler.max_points, least, floor, most
        )
    if scaler.windows:
        return window_use(scaler.windows, least, most)
    return set_point_use(scaler.set_points, floor, most)


def read_gpu_footprints(
    type_: str,
    props: dict[str, Any],
    provider_props: dict[str, Any] | None = None,
    machines: MachineCatalog | None = None,
    *,
    last_net: bool = True,
) -> tuple[GpuFootprint, ...]:
    """The GPU footprints of one resource: one per part holding GPUs (most resources have
    one); none when it holds no GPUs (or is no compute). ``last_net``: search a type no reader
    knows for GPU machines (not for a component of the program, whose properties are the
    outputs it registered: its children are what it builds)."""
    if type_.startswith("pulumi:"):
        return ()  # the engine's own: the stack and its outputs, providers, stack references
    reading = Reading(props, provider_props or {}, machines or shipped_machine_catalog())
    reader = READERS.get(type_)
    if reader is not None:
        found = reader(reading)
    elif type_ in NOT_GPU_CAPACITY or type_ in HOLDS_DATA or not last_net:
        return ()
    else:
        found = read_named_anywhere(reading, type_)
    if found is None:
        return ()
    return found if isinstance(found, tuple) else (found,)


def read_gpu_footprint(
    type_: str,
    props: dict[str, Any],
    provider_props: dict[str, Any] | None = None,
    machines: MachineCatalog | None = None,
) -> GpuFootprint | None:
    """The GPU footprint of a resource read as one part, or None when it holds no GPUs; a
    resource of several parts is an error here (``read_gpu_footprints``)."""
    found = read_gpu_footprints(type_, props, provider_props, machines)
    if len(found) > 1:
        raise ValueError(f"{type_} reads as {len(found)} parts: use read_gpu_footprints")
    return found[0] if found else None


def gpu_tag_path(type_: str) -> str | None:
    """Where a GPU resource type carries its cost tags, when not a top-level map."""
    return TAG_PATHS.get(type_)


def resolve_template(footprint: GpuFootprint, templates: list[GpuFootprint]) -> GpuFootprint:
    """``footprint`` with the machines (and market) of the templates it launches from (a group
    may roll out several versions: each template's machines are an option)."""
    if not footprint.template_properties or footprint.machines:
        return footprint
    if not templates:
        return replace(
            footprint,
            undetermined=(*footprint.undetermined, "its template is not in this stack"),
            unknown=False,
        )
    machines = tuple(dict.fromkeys(m for t in templates for m in t.machines))
    markets = {t.market or "on_demand" for t in templates}
    notes = footprint.notes
    if footprint.market is None and len(markets) > 1:
        notes = (*notes, "its templates differ in pricing: priced at the dearest, on-demand")
    parts = (footprint, *templates)
    # Capacity in a reservation through its template is in that reservation too.
    reserving = [t for t in templates if t.market == "in_reservation"]
    if reserving and footprint.market is not None:
        notes = (
            *notes,
            "its template targets a capacity reservation, which the engine does not match "
            "for a group that sets its own market (a mixed instances policy): priced at its "
            "own rates, the reservation too",
        )
    if footprint.market is None and reserving and len(reserving) == len(templates):
        footprint = replace(
            footprint,
            reservation_names=tuple(n for t in reserving for n in t.reservation_names),
            reservation_properties=reserving[0].reservation_properties,
            market_outside_reservation=reserving[0].market_outside_reservation,
        )
    return replace(
        footprint,
        machines=machines,
        undetermined=tuple(u for f in parts for u in f.undetermined),
        # Only unknowns when each part's undetermined is only unknowns (or nothing).
        unknown=all(f.unknown or not f.undetermined for f in parts)
        and any(f.undetermined for f in parts),
        market=footprint.market or (markets.pop() if len(markets) == 1 else "on_demand"),
        region=footprint.region or next((t.region for t in templates if t.region), None),
        notes=notes,
    )

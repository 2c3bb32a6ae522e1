"""The GPU capacity of a whole stack: every GPU resource with its machines resolved.

Capacity that launches from a template (ASG -> launch template, MIG -> instance template)
names it through a property whose dependencies the engine records even in a preview, when the
template's id or self link is still unknown; the template's footprint fills in the machines.
A VM that runs in a reservation costs nothing of its own only when the reservation is in the
stack. A component has no provider of its own: its children's provider says where it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from gpufleet.capacity.footprints import (
    apply_scaler,
    read_gpu_footprint,
    read_scaler,
    resolve_template,
)
from gpufleet.capacity.footprints.model import GpuFootprint
from gpufleet.capacity.footprints.reading import Scaler
from gpufleet.capacity.stack_resource import StackResource


@dataclass(frozen=True)
class StackCapacity:
    resource: StackResource
    footprint: GpuFootprint
    template: StackResource | None = None  # the template it launches from, when resolved


def stack_footprints(resources: list[StackResource]) -> list[StackCapacity]:
    """Every GPU resource of the stack (templates and capacity), capacity resolved, in the
    stack's order."""
    by_urn = {r.urn: r for r in resources}
    child_provider: dict[str, dict] = {}
    for r in resources:
        if r.parent and r.provider_props and r.parent not in child_provider:
            child_provider[r.parent] = r.provider_props
    read = {
        r.urn: footprint
        for r in resources
        if (
            footprint := read_gpu_footprint(
                r.type, r.props, r.provider_props or child_provider.get(r.urn)
            )
        )
        is not None
    }
    reservations = Reservations(read, by_urn)
    scalers = _scalers(resources)
    out = []
    for r in resources:
        footprint = read.get(r.urn)
        if footprint is None:
            continue
        if r.urn in scalers:
            footprint = apply_scaler(footprint, scalers[r.urn])
        # Sorted: a group rolling out several versions depends on several templates, and the
        # engine records property dependencies in no particular order.
        template_urns = sorted(
            {
                urn
                for prop in footprint.template_properties
                for urn in r.property_dependencies.get(prop, [])
                if urn in read and read[urn].is_template
            }
        )
        if footprint.template_properties and not footprint.machines:
            footprint = resolve_template(footprint, [read[urn] for urn in template_urns])
        if footprint.market == "in_reservation":
            footprint = resolve_reservation(
                footprint, r, reservations, [by_urn[urn] for urn in template_urns]
            )
        template = by_urn.get(template_urns[0]) if template_urns else None
        out.append(StackCapacity(r, footprint, template))
    return out


def _scalers(resources: list[StackResource]) -> dict[str, Scaler]:
    """The scaler of each group that has one, found through the scaler's property
    dependencies (its target), as templates are."""
    found: dict[str, Scaler] = {}
    for r in resources:
        scaler = read_scaler(r.type, r.props)
        if scaler is not None:
            for urn in r.property_dependencies.get(scaler.target_property, []):
                # A group may have several (AWS: one resource per scheduled action).
                found[urn] = found[urn].merged(scaler) if urn in found else scaler
    return found


class Reservations:
    """The stack's reservations, found by what links capacity to them: a URN in the
    capacity's (or its template's) property dependencies, or a name (the resource's ``name``
    property, else its Pulumi name). A reservation that belongs to a group (an Azure capacity
    reservation group) is found through the group too, since capacity names the group."""

    def __init__(self, read: dict[str, GpuFootprint], by_urn: dict[str, StackResource]) -> None:
        self._machines: dict[str, set[str]] = {}
        self._by_name: dict[str, list[str]] = {}
        for urn, found in read.items():
            if found.market != "reserved":
                continue
            machines = {m.instance_type for m in found.machines}
            resource = by_urn[urn]
            groups = [
                dep
                for prop in found.reservation_properties
                for dep in resource.property_dependencies.get(prop, [])
            ]
            for key in (urn, *groups):
                self._machines.setdefault(key, set()).update(machines)
            names = {resource.name, resource.props.get("name"), *found.reservation_names}
            for name in names:
                if isinstance(name, str):
                    self._by_name.setdefault(name, []).append(urn)

    def holds(
        self,
        footprint: GpuFootprint,
        resource: StackResource,
        templates: Sequence[StackResource] = (),
    ) -> bool:
        """Whether a reservation of the stack, linked to ``resource`` (or the templates it
        launches from) through property dependencies or named by it, holds its machines."""
        linked = [
            urn
            for source in (resource, *templates)
            for prop in footprint.reservation_properties
            for urn in source.property_dependencies.get(prop, [])
        ]
        named = (urn for name in footprint.reservation_names for urn in self._by_name.get(name, ()))
        machines = {m.instance_type for m in footprint.machines}
        return any(
            urn != resource.urn and machines <= self._machines.get(urn, set())
            for urn in (*linked, *named)
        )


def resolve_reservation(
    footprint: GpuFootprint,
    resource: StackResource,
    reservations: Reservations,
    templates: Sequence[StackResource],
) -> GpuFootprint:
    """Capacity in a reservation runs at no cost of its own only when the stack holds that
    reservation for the same machine; otherwise the stack pays for it like any capacity, and
    says why."""
    if reservations.holds(footprint, resource, templates):
        return footprint
    where = ", ".join(footprint.reservation_names) or "a reservation"
    return replace(
        footprint,
        market=footprint.market_outside_reservation or "on_demand",
        notes=(
            *footprint.notes,
            f"runs in {where}, which is not in this stack for its machine: priced at its own "
            "rate (a reservation elsewhere may pay for it)",
        ),
    )


def stack_capacity(resources: list[StackResource]) -> list[StackCapacity]:
    """Capacity resources only (what runs and costs), templates left out."""
    return [c for c in stack_footprints(resources) if not c.footprint.is_template]

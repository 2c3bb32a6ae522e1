"""The GPU capacity of a whole stack: every GPU resource with its machines resolved.

Capacity that launches from a template (ASG -> launch template, MIG -> instance template)
names it through a property whose dependencies the engine records even in a preview, when the
template's id or self link is still unknown; the template's footprint fills in the machines.
A component has no provider of its own: its children's provider says where it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpufleet.capacity.footprints import read_gpu_footprint, resolve_template
from gpufleet.capacity.footprints.model import GpuFootprint
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
    out = []
    for r in resources:
        footprint = read.get(r.urn)
        if footprint is None:
            continue
        template_urn = next(
            (
                urn
                for prop in footprint.template_properties
                for urn in r.property_dependencies.get(prop, [])
                if urn in read and read[urn].is_template
            ),
            None,
        )
        if footprint.template_properties and not footprint.machines:
            footprint = resolve_template(footprint, read.get(template_urn or ""))
        out.append(StackCapacity(r, footprint, by_urn.get(template_urn or "")))
    return out


def stack_capacity(resources: list[StackResource]) -> list[StackCapacity]:
    """Capacity resources only (what runs and costs), templates left out."""
    return [c for c in stack_footprints(resources) if not c.footprint.is_template]

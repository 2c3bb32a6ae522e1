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
from typing import Any

from gpufleet import resource_types as types
from gpufleet.capacity.footprints import (
    apply_scaler,
    read_gpu_footprints,
    read_scaler,
    resolve_template,
    scheduled_use,
)
from gpufleet.capacity.footprints.model import GpuFootprint
from gpufleet.capacity.footprints.reading import Scaler
from gpufleet.capacity.property_values import is_unknown
from gpufleet.capacity.stack_resource import StackResource


@dataclass(frozen=True)
class StackCapacity:
    resource: StackResource
    footprint: GpuFootprint
    template: StackResource | None = None  # the template it launches from, when resolved
    # The template of its version of fixed size (``GpuFootprint.fixed_share``), if any.
    share_template: StackResource | None = None

    @property
    def name(self) -> str:
        """The resource's name, and the part for a resource of several (``cluster/gpu``)."""
        part = self.footprint.part
        return self.resource.name if part is None else f"{self.resource.name}/{part}"


def stack_footprints(resources: list[StackResource]) -> list[StackCapacity]:
    """Every GPU resource of the stack (templates and capacity), capacity resolved, in the
    stack's order."""
    by_urn = {r.urn: r for r in resources}
    child_provider: dict[str, dict] = {}
    for r in resources:
        if r.parent and r.provider_props and r.parent not in child_provider:
            child_provider[r.parent] = r.provider_props
    read = {
        r.urn: parts
        for r in resources
        if (
            parts := read_gpu_footprints(
                r.type,
                _with_cluster_zones(r, by_urn),
                r.provider_props or child_provider.get(r.urn),
            )
        )
    }
    # Templates and reservations are resources of one part.
    single = {urn: parts[0] for urn, parts in read.items() if len(parts) == 1}
    templates = {urn: found for urn, found in single.items() if found.is_template}
    reservations = Reservations(single, by_urn)
    scalers = _scalers(resources)
    out = []
    for r in resources:
        for footprint in read.get(r.urn, ()):
            found = _resolved(r, footprint, by_urn, templates, reservations, scalers)
            if found is not None:
                out.append(found)
    return out


def _with_cluster_zones(r: StackResource, by_urn: dict[str, StackResource]) -> dict[str, Any]:
    """A GKE node pool's properties, with its cluster's node locations when it sets none: its
    node counts are per zone of the cluster (``gcp._zones``)."""
    if r.type != types.GKE_NODE_POOL or r.props.get("nodeLocations"):
        return r.props
    clusters = [
        by_urn[urn]
        for urn in r.property_dependencies.get("cluster", [])
        if urn in by_urn and by_urn[urn].type == types.GKE_CLUSTER
    ]
    if not clusters:
        named = r.props.get("cluster")
        name = named.rsplit("/", 1)[-1] if isinstance(named, str) else None
        clusters = [
            c
            for c in by_urn.values()
            if c.type == types.GKE_CLUSTER and name and c.props.get("name") == name
        ]
    if len(clusters) != 1:
        return r.props
    cluster = clusters[0].props
    inherited = {"nodeLocations": cluster.get("nodeLocations")}
    if cluster.get("location") is not None:
        inherited["location"] = cluster.get("location")
    return {**r.props, **{k: v for k, v in inherited.items() if v is not None}}


def _resolved(
    r: StackResource,
    footprint: GpuFootprint,
    by_urn: dict[str, StackResource],
    read: dict[str, GpuFootprint],
    reservations: Reservations,
    scalers: dict[str, Scaler],
) -> StackCapacity | None:
    """One footprint of ``r`` with its scaler, templates and reservations applied; None for
    a group whose templates (in the stack) hold no GPUs."""
    if r.urn in scalers:
        footprint = apply_scaler(footprint, scalers[r.urn])
    # Sorted: a group rolling out several versions depends on several templates, and the
    # engine records property dependencies in no particular order.
    template_urns = sorted(
        {
            urn
            for prop in footprint.template_properties
            for urn in r.property_dependencies.get(prop, [])
            if urn in read
        }
    )
    if footprint.template_properties and not footprint.machines and not template_urns:
        linked = {
            urn
            for prop in footprint.template_properties
            for urn in r.property_dependencies.get(prop, [])
            if urn in by_urn
        }
        if linked and not footprint.undetermined:
            return None  # it launches from templates in the stack that hold no GPUs
    split = _fixed_version(footprint, [by_urn[urn] for urn in template_urns])
    share_template = None
    if split is not None:
        share_template, size, rest_template = split
        share = _fixed_share(footprint, size, read[share_template.urn])
        if footprint.weekly_use is not None and r.urn in scalers:
            # What its schedule runs of the first ``size`` units, priced at their rate.
            share = replace(
                share,
                weekly_use=scheduled_use(scalers[r.urn], share.expected_units, share.max_units),
            )
        if share.market == "in_reservation":
            share = resolve_reservation(share, r, reservations, [share_template])
        footprint = _with_share(resolve_template(footprint, [read[rest_template.urn]]), share)
        template_urns = [rest_template.urn]
    elif footprint.template_properties and not footprint.machines:
        footprint = resolve_template(footprint, [read[urn] for urn in template_urns])
    if footprint.market == "in_reservation":
        footprint = resolve_reservation(
            footprint, r, reservations, [by_urn[urn] for urn in template_urns]
        )
    template = by_urn.get(template_urns[0]) if template_urns else None
    return StackCapacity(r, footprint, template, share_template)


def _fixed_version(
    footprint: GpuFootprint, templates: list[StackResource]
) -> tuple[StackResource, float, StackResource] | None:
    """(the template of its version of fixed size, that size, the template of the version that
    takes the rest) for a group of two such versions whose templates are both in the stack;
    None otherwise (several versions are then options of the group as a whole)."""
    if len(footprint.versions) != 2 or footprint.machines:
        return None
    fixed = [v for v in footprint.versions if v.fixed is not None and not v.takes_rest]
    rest = [v for v in footprint.versions if v.takes_rest]
    if len(fixed) != 1 or len(rest) != 1 or fixed[0].fixed is None:
        return None
    share, other = (
        _template_at(fixed[0].template, templates),
        _template_at(rest[0].template, templates),
    )
    if share is None or other is None or share is other:
        return None
    return share, fixed[0].fixed, other


def _template_at(link: str | None, templates: list[StackResource]) -> StackResource | None:
    """The template a version's link names (its self link, with or without the unique id,
    full URL or from ``projects/`` on)."""
    if link is None:
        return None
    wanted = _link_key(link)
    for template in templates:
        props = template.props
        for key in ("selfLinkUnique", "selfLink", "id"):
            value = props.get(key)
            if isinstance(value, str) and value and _link_key(value) == wanted:
                return template
    return None


def _link_key(link: str) -> str:
    link = link.strip().lower()
    at = link.find("projects/")
    return link[at:] if at >= 0 else link


def _fixed_share(group: GpuFootprint, size: float, template: GpuFootprint) -> GpuFootprint:
    """The group's version of fixed ``size`` as capacity of its own: that many of the group's
    units (fewer when the group holds fewer), from its own template."""
    share = replace(
        group,
        versions=(),
        expected_units=None if group.expected_units is None else min(size, group.expected_units),
        max_units=None if group.max_units is None else min(size, group.max_units),
        declared_minutes=None,
        scales_itself=False,
        weekly_use=None,
        notes=(),
    )
    return resolve_template(share, [template])


def _with_share(footprint: GpuFootprint, share: GpuFootprint) -> GpuFootprint:
    """The group with its fixed version: what could not be determined of either is the
    group's (unknown only while both are known once deployed), the share's notes said."""
    parts = (footprint, share)
    undetermined = tuple(dict.fromkeys(u for f in parts for u in f.undetermined))
    return replace(
        footprint,
        fixed_share=share,
        undetermined=undetermined,
        unknown=bool(undetermined) and all(f.unknown or not f.undetermined for f in parts),
        notes=(*footprint.notes, *(f"its fixed version {note}" for note in share.notes)),
    )


def _scalers(resources: list[StackResource]) -> dict[str, Scaler]:
    """The scaler of each group that has one, found through the scaler's property
    dependencies (its target), as templates are, or else by the name, id, ARN or URL its
    target holds (a scaler written with the group's literal name still sizes it)."""
    found: dict[str, Scaler] = {}
    by_name: dict[str, list[str]] | None = None
    for r in resources:
        scaler = read_scaler(r.type, r.props)
        if scaler is None:
            continue
        targets = r.property_dependencies.get(scaler.target_property, [])
        if not targets:
            by_name = by_name if by_name is not None else _resources_by_name(resources)
            targets = _named_targets(r.props.get(scaler.target_property), by_name)
        for urn in targets:
            # A group may have several (AWS: one resource per scheduled action).
            found[urn] = found[urn].merged(scaler) if urn in found else scaler
    return found


# The properties that name a resource in the cloud: what a scaler's target can hold.
_NAME_PROPERTIES = ("name", "vmScaleSetName", "autoScalingGroupName", "arn", "selfLink", "id")


def _resources_by_name(resources: list[StackResource]) -> dict[str, list[str]]:
    index: dict[str, list[str]] = {}
    for r in resources:
        for key in _NAME_PROPERTIES:
            value = r.props.get(key)
            if isinstance(value, str) and value and not is_unknown(value):
                index.setdefault(value.lower(), []).append(r.urn)
    return index


def _named_targets(target: Any, by_name: dict[str, list[str]]) -> list[str]:
    """The resources a literal target names: the whole value (an id, ARN or URL), else its
    last path segment (a URL's or an ARN's name)."""
    if not isinstance(target, str) or not target or is_unknown(target):
        return []
    whole = target.strip().lower()
    if whole in by_name:
        return by_name[whole]
    return by_name.get(whole.rstrip("/").rsplit("/", 1)[-1], [])


RESERVATION_UNKNOWN = "its reservation's machine type is unknown during preview"


class Reservations:
    """The stack's reservations and what is left in them. Capacity finds its reservation by
    the name it gives (the reservation's ``name``, id or ARN property, or its Pulumi name,
    compared without case), or, when the name is not known yet (a preview),
    through its own or its template's property dependencies. A reservation that belongs to a
    group (an Azure capacity reservation group) is found through the group too, since capacity
    names the group. Each reservation covers as many instances as it holds, once: capacity
    that does not fit in what is left of it pays its own way."""

    def __init__(self, read: dict[str, GpuFootprint], by_urn: dict[str, StackResource]) -> None:
        self._machines: dict[str, set[str]] = {}
        self._left: dict[str, float] = {}  # instances each reservation has not covered yet
        self._by_key: dict[str, list[str]] = {}  # a URN or name -> the reservations it reaches
        self._by_name: dict[str, list[str]] = {}
        # Reservations whose machine is unknown until deployed (a preview): what runs in them
        # cannot be matched yet.
        self._unknown: set[str] = set()
        for urn, found in read.items():
            if found.market != "reserved":
                continue
            self._machines[urn] = {m.instance_type for m in found.machines}
            self._left[urn] = found.max_units or 0.0
            if not found.machines and found.unknown:
                self._unknown.add(urn)
            resource = by_urn[urn]
            groups = [
                dep
                for prop in found.reservation_properties
                for dep in resource.property_dependencies.get(prop, [])
            ]
            for key in (urn, *groups):
                self._by_key.setdefault(key, []).append(urn)
            props = resource.props
            names = {resource.name, props.get("name"), props.get("id"), props.get("arn")}
            for name in (*names, *found.reservation_names):
                if isinstance(name, str) and name:
                    self._by_name.setdefault(name.lower(), []).append(urn)

    def cover(
        self,
        footprint: GpuFootprint,
        resource: StackResource,
        templates: Sequence[StackResource] = (),
    ) -> str | None:
        """Take ``footprint``'s instances from the stack reservations it runs in; None when
        they fit (the reservations pay), else why they do not."""
        if footprint.market_outside_reservation == "spot":
            return "spot capacity cannot run in a reservation"
        if footprint.reservation_names:
            reached = [
                urn
                for name in footprint.reservation_names
                for urn in self._by_name.get(name.lower(), ())
            ]
        else:
            reached = [
                reservation
                for source in (resource, *templates)
                for prop in footprint.reservation_properties
                for dep in source.property_dependencies.get(prop, [])
                for reservation in self._by_key.get(dep, ())
            ]
        machines = {m.instance_type for m in footprint.machines}
        fitting = list(
            dict.fromkeys(
                urn for urn in reached if urn != resource.urn and machines <= self._machines[urn]
            )
        )
        if not fitting:
            if any(urn in self._unknown for urn in reached):
                return RESERVATION_UNKNOWN
            return "is not in this stack for its machine"
        wanted = footprint.max_units
        if wanted is not None and footprint.fixed_share is not None:
            # Its fixed version was matched on its own: the rest of the group is what runs here.
            wanted = max(wanted - (footprint.fixed_share.max_units or 0.0), 0.0)
        if wanted is None or wanted > sum(self._left[urn] for urn in fitting):
            return "does not have room for all of it (what it holds covers other capacity too)"
        for urn in fitting:
            taken = min(wanted, self._left[urn])
            self._left[urn] -= taken
            wanted -= taken
        return None


def resolve_reservation(
    footprint: GpuFootprint,
    resource: StackResource,
    reservations: Reservations,
    templates: Sequence[StackResource],
) -> GpuFootprint:
    """Capacity in a reservation runs at no cost of its own only when a reservation of the
    stack holds its machine and has room for it; otherwise the stack pays for it like any
    capacity (the reservation is priced too), and says why."""
    why = reservations.cover(footprint, resource, templates)
    if why is None:
        return footprint
    if why == RESERVATION_UNKNOWN:
        # Neither free nor its own rate yet: known once deployed.
        return replace(
            footprint,
            undetermined=(*footprint.undetermined, why),
            unknown=footprint.unknown or not footprint.undetermined,
        )
    where = ", ".join(footprint.reservation_names) or "a reservation"
    return replace(
        footprint,
        market=footprint.market_outside_reservation or "on_demand",
        notes=(
            *footprint.notes,
            f"runs in {where}, which {why}: priced at its own rate"
            if not why.startswith("spot")
            else f"{why}: priced as spot",
        ),
    )


def stack_capacity(resources: list[StackResource]) -> list[StackCapacity]:
    """Capacity resources only (what runs and costs), templates left out."""
    return [c for c in stack_footprints(resources) if not c.footprint.is_template]

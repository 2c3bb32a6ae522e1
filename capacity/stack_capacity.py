"""The GPU capacity of a whole stack: every GPU resource with its machines resolved.

Capacity that launches from a template (ASG -> launch template, MIG -> instance template)
names it through a property whose dependencies the engine records even in a preview, when the
template's id or self link is still unknown; the template's footprint fills in the machines.
A VM that runs in a reservation costs nothing of its own only when the reservation is in the
stack. A component has no provider of its own: its children's provider says where it is.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from gpufleet import resource_types as types
from gpufleet.capacity.footprints import (
    apply_scaler,
    read_gpu_footprints,
    read_scaler,
    resolve_template,
    scheduled_use,
)
from gpufleet.capacity.footprints.model import GpuFootprint
from gpufleet.capacity.footprints.reading import INHERITS, READERS, Scaler
from gpufleet.capacity.property_values import get_path, is_unknown
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.capacity.unread_sizers import set_by_unread, undetermined_by
from gpufleet.clouds import cloud_of_type
from gpufleet.engine.wire import UNREADABLE_OFFLINE


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


# How one resource's footprints are read: the resource, the properties to read (its own, or
# completed with what it inherits) and its provider's. ``read_resource`` by default; the policy
# pack's reuses what its resource policies read of the same resource (``shared_reads``).
FootprintReader = Callable[
    [StackResource, dict[str, Any], dict[str, Any] | None], tuple[GpuFootprint, ...]
]


def read_resource(
    r: StackResource, props: dict[str, Any], provider_props: dict[str, Any] | None
) -> tuple[GpuFootprint, ...]:
    return read_gpu_footprints(r.type, props, provider_props, last_net=r.has_provider)


def stack_footprints(
    resources: list[StackResource], read_footprints: FootprintReader = read_resource
) -> list[StackCapacity]:
    """Every GPU resource of the stack (templates and capacity), capacity resolved, in the
    stack's order."""
    by_urn = {r.urn: r for r in resources}
    child_provider: dict[str, dict] = {}
    for r in resources:
        if r.parent and r.provider_props and r.parent not in child_provider:
            child_provider[r.parent] = r.provider_props
    inherited = _Inherited(by_urn)
    read = {
        r.urn: parts
        for r in resources
        if (
            parts := read_footprints(
                r,
                inherited(r, _with_cluster_zones(r, by_urn)),
                r.provider_props or child_provider.get(r.urn),
            )
        )
    }
    # Templates and reservations are resources of one part.
    single = {urn: parts[0] for urn, parts in read.items() if len(parts) == 1}
    templates = {urn: found for urn, found in single.items() if found.is_template}
    reservations = Reservations(single, by_urn)
    scalers, unlinked = _scalers(resources, read)
    # Capacity whose size a resource gpufleet does not read sets (``unread_sizers``).
    set_by = set_by_unread(resources, by_urn, read)
    names = _Names(resources)
    out = []
    for r in resources:
        for footprint in read.get(r.urn, ()):
            found = _resolved(r, footprint, by_urn, templates, reservations, scalers, names)
            if found is not None and r.urn in set_by and not found.footprint.is_template:
                found = replace(found, footprint=undetermined_by(found.footprint, set_by[r.urn]))
            if found is not None:
                out.append(found)
        out.extend(c for c in unlinked if c.resource.urn == r.urn)
    return out


class _Inherited:
    """What the resource a resource names completes its properties with (``reading.INHERITS``:
    an Elastic Beanstalk environment's configuration template, a Dataproc cluster's autoscaling
    policy, a container app's environment), found through the naming property's dependencies
    or by the name it holds; its properties as they are when that is not in the stack (the
    reader then says what it cannot know)."""

    def __init__(self, by_urn: dict[str, StackResource]) -> None:
        self.by_urn = by_urn
        self._index: dict[str, list[str]] | None = None  # built once, when a name is needed

    def __call__(self, r: StackResource, props: dict[str, Any]) -> dict[str, Any]:
        for way in INHERITS.get(r.type, ()):
            path = way.named_by.split(".")
            value = get_path(props, *path)
            if value is None:
                continue
            urns = [u for u in r.property_dependencies.get(path[0], []) if u in self.by_urn]
            named = [self.by_urn[u] for u in urns if self.by_urn[u].type in way.named_types]
            if not named:
                if self._index is None:
                    self._index = _resources_by_name(list(self.by_urn.values()))
                urns = _named_targets(value, self._index)
                named = [self.by_urn[u] for u in urns if self.by_urn[u].type in way.named_types]
            if len(named) == 1:
                return way.inherit(props, named[0].props)
        return props


def _names_a_template(key: str) -> bool:
    """Whether a key within a template-naming property holds the template's name, id or version
    (``launchTemplate.id``, ``versions[].instanceTemplate``), not another setting (a spot price)."""
    return "template" in key.lower() or key in ("id", "name", "version")


def _unreadable_reference(r: StackResource, properties: tuple[str, ...]) -> str | None:
    """How a template-naming property holds, where it names the template, a value nothing
    offline reads (another stack's output, a secret, an invoke's answer); None otherwise."""
    for prop in properties:
        # The property itself names a template: a value of its own counts, whatever its name.
        pending: list[tuple[str, Any]] = [("template", r.props.get(prop))]
        while pending:
            key, value = pending.pop()
            if isinstance(value, dict):
                pending.extend(value.items())
            elif isinstance(value, list):
                pending.extend((key, item) for item in value)
            elif value in UNREADABLE_OFFLINE and _names_a_template(key):
                return f"its {prop} names it by {value}"
    return None


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
    scalers: dict[tuple[str, str | None], Scaler],
    names: _Names | None = None,
) -> StackCapacity | None:
    """One footprint of ``r`` with its scaler, templates and reservations applied; None for
    a group whose templates (in the stack) hold no GPUs."""
    # A scaler of the whole resource, then one of this part (a variant, a core group).
    for key in dict.fromkeys(((r.urn, None), (r.urn, footprint.part))):
        if key in scalers:
            footprint = apply_scaler(footprint, scalers[key])
    linked = {
        urn
        for prop in footprint.template_properties
        for urn in r.property_dependencies.get(prop, [])
        if urn in by_urn
    }
    if footprint.template_properties and not linked and names is not None:
        # No dependency: it may name a template of the stack by its literal name, id or URL.
        linked = _named_templates(r, footprint.template_properties, names, by_urn)
    # Sorted: a group rolling out several versions depends on several templates, and the
    # engine records property dependencies in no particular order.
    template_urns = sorted(urn for urn in linked if urn in read)
    unreadable = _unreadable_reference(r, footprint.template_properties)
    if unreadable is not None:
        # A dependency says what it was built from, not which template the value names: one
        # nothing offline can read may name another template, outside the stack.
        footprint = replace(
            footprint,
            undetermined=(*footprint.undetermined, f"which template it launches ({unreadable})"),
            unknown=False,
        )
    if (
        footprint.template_properties
        and not footprint.machines
        and not template_urns
        and linked
        and set(footprint.undetermined) <= set(footprint.size_reasons)
    ):
        # It launches from templates in the stack that hold no GPUs: whatever its size (known
        # or not), it holds none. Not when which machines it launches is in question itself.
        return None
    split = _fixed_version(footprint, [by_urn[urn] for urn in template_urns])
    share_template = None
    if split is not None:
        share_template, size, rest_template = split
        share = _fixed_share(footprint, size, read[share_template.urn])
        if footprint.weekly_use is not None and (r.urn, None) in scalers:
            # What its schedule runs of the first ``size`` units, priced at their rate.
            share = replace(
                share,
                weekly_use=scheduled_use(
                    scalers[(r.urn, None)], share.expected_units, share.max_units
                ),
            )
        if share.market == "in_reservation":
            share = resolve_reservation(share, r, reservations, [share_template])
        footprint = _with_share(resolve_template(footprint, [read[rest_template.urn]]), share)
        template_urns = [rest_template.urn]
    elif footprint.template_properties and not footprint.machines:
        footprint = resolve_template(footprint, [read[urn] for urn in template_urns])
        if _versions_unmatched(footprint, template_urns):
            # Which template each version launches decides what runs where (a base in its
            # reservation, a burst on spot): known once deployed, as Pulumi treats unknowns.
            footprint = replace(
                footprint,
                undetermined=(*footprint.undetermined, VERSIONS_UNKNOWN),
                unknown=footprint.unknown or not footprint.undetermined,
            )
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


VERSIONS_UNKNOWN = "which of its templates each version launches is unknown during preview"


def _versions_unmatched(footprint: GpuFootprint, template_urns: list[str]) -> bool:
    """A group of a version of fixed size and one taking the rest, from two templates of the
    stack, whose links to them are not known yet (a preview): the split cannot be priced."""
    versions = footprint.versions
    return (
        len(versions) == 2
        and len(template_urns) == 2
        and all(v.template is None for v in versions)
        and sum(v.fixed is not None and not v.takes_rest for v in versions) == 1
        and sum(v.takes_rest for v in versions) == 1
    )


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


def _scalers(
    resources: list[StackResource], read: dict[str, tuple[GpuFootprint, ...]]
) -> tuple[dict[tuple[str, str | None], Scaler], list[StackCapacity]]:
    """The scaler of each group (or part of one: ``Scaler.part``) that has one, found through
    the scaler's property dependencies (its target), as templates are, or else by the name,
    id, ARN or URL its target holds (a scaler written with the group's literal name still
    sizes it); and, for a scaler that moves GPU capacity (``Scaler.must_link``) whose link
    leads to none gpufleet reads, a footprint of the scaler itself, undetermined."""
    links = _ScalerLinks(resources, read)
    found: dict[tuple[str, str | None], Scaler] = {}
    unlinked: list[StackCapacity] = []
    for r in resources:
        scaler = read_scaler(r.type, r.props)
        if scaler is None:
            continue
        targets, members, strays = links.follow(r, scaler)
        # Its members are raised to its max; their own sizes hold otherwise.
        joined = replace(scaler, least=None, bounds=False, part=None)
        for key, sizing in (
            *((t, scaler) for t in targets),
            *(((m, None), joined) for m in members),
        ):
            # A group may have several (AWS: one resource per scheduled action).
            found[key] = found[key].merged(sizing) if key in found else sizing
        if scaler.must_link:
            why = links.unlinked(r, scaler, bool(targets or members), strays)
            if why is not None:
                unlinked.append(StackCapacity(r, _unlinked_footprint(r, scaler, *why)))
    return found, unlinked


class _ScalerLinks:
    """Where scalers lead: the capacity (and part of it) each sizes, through resources that
    hold none themselves (an endpoint to its configuration, a scheduled action to its
    scalable target), and the resources in the stack it reaches but cannot size."""

    # Hops from a scaler to its capacity (scheduled action -> target -> endpoint -> config).
    _MOST_HOPS = 4

    def __init__(
        self, resources: list[StackResource], read: dict[str, tuple[GpuFootprint, ...]]
    ) -> None:
        self.resources = resources
        self.by_urn = {r.urn: r for r in resources}
        self.read = read
        self._by_name: dict[str, list[str]] | None = None
        self._members: dict[str, dict[str, list[str]]] = {}

    def linked(self, r: StackResource, prop: str, names: tuple[str, ...] = ()) -> list[str]:
        """The resources ``r``'s ``prop`` names: its dependencies, else the names it gives
        (``names``, most specific first, or the value itself); of those, the most specific
        (a resource another of them depends on is only part of that one's name)."""
        urns = [u for u in r.property_dependencies.get(prop, []) if u in self.by_urn]
        if not urns:
            if self._by_name is None:
                self._by_name = _resources_by_name(self.resources)
            if names:
                urns = next(
                    (self._by_name[n.lower()] for n in names if n.lower() in self._by_name), []
                )
            else:
                urns = _named_targets(r.props.get(prop), self._by_name)
        urns = list(dict.fromkeys(u for u in urns if u != r.urn and u in self.by_urn))
        if len(urns) < 2:
            return urns
        depended = {
            dep
            for other in urns
            for deps in self.by_urn[other].property_dependencies.values()
            for dep in deps
            if dep != other
        }
        return [u for u in urns if u not in depended] or urns

    def follow(
        self, r: StackResource, scaler: Scaler
    ) -> tuple[list[tuple[str, str | None]], list[str], list[StackResource]]:
        """(the capacity it sizes: (URN, part or None for all of it); its members' URNs; the
        resources it reaches in the stack whose capacity gpufleet does not read)."""
        targets: list[tuple[str, str | None]] = []
        strays: list[StackResource] = []
        reached: set[str] = set()
        pending = deque(
            (u, scaler, 0) for u in self.linked(r, scaler.target_property, scaler.names)
        )
        while pending:
            urn, sizing, hops = pending.popleft()
            if urn in reached:
                continue
            reached.add(urn)
            res = self.by_urn[urn]
            if urn in self.read:
                key = _part_key(self.read[urn], sizing.part)
                if key is not False:
                    targets.append((urn, key))
                continue
            if res.type in READERS:
                continue  # capacity gpufleet reads, holding no GPUs
            inner = read_scaler(res.type, res.props) if hops < self._MOST_HOPS else None
            through = [p for p in sizing.through if res.props.get(p) is not None]
            if inner is not None:
                # Another scaler of the same capacity (a scheduled action's scalable target).
                onward = replace(
                    inner,
                    part=sizing.part if sizing.part is not None else inner.part,
                    through=tuple(dict.fromkeys((*sizing.through, *inner.through))),
                )
                pending += [
                    (u, onward, hops + 1)
                    for u in self.linked(res, inner.target_property, inner.names)
                ]
            elif through and hops < self._MOST_HOPS:
                onward_urns = [u for p in through for u in self.linked(res, p)]
                if not onward_urns:
                    strays.append(res)
                pending += [(u, sizing, hops + 1) for u in onward_urns]
            else:
                strays.append(res)
        members = [
            m
            for p in scaler.members
            for u in reached
            for m in self._joined(p).get(u, ())
            if m not in reached
        ]
        return list(dict.fromkeys(targets)), list(dict.fromkeys(members)), strays

    def _joined(self, prop: str) -> dict[str, list[str]]:
        """The capacity that joins each resource by ``prop`` (its members: an EMR cluster's
        task groups, by their ``clusterId``), found once per property."""
        if prop not in self._members:
            index: dict[str, list[str]] = {}
            for urn in self.read:
                member = self.by_urn[urn]
                if prop in member.props or member.property_dependencies.get(prop):
                    for joined in self.linked(member, prop):
                        index.setdefault(joined, []).append(urn)
            self._members[prop] = index
        return self._members[prop]

    def unlinked(
        self, r: StackResource, scaler: Scaler, sized: bool, strays: list[StackResource]
    ) -> tuple[str, bool] | None:
        """Why a scaler that moves GPU capacity cannot be followed to it, and whether only
        because a value is unknown during a preview; None when it can (or names capacity
        outside the stack)."""
        if strays:
            named = ", ".join(f"{s.name} ({s.type})" for s in strays[:3])
            return (
                f"it sizes {named}, whose GPU capacity gpufleet cannot find or does not read",
                False,
            )
        if sized:
            return None
        value = r.props.get(scaler.target_property)
        if is_unknown(value):
            return (
                f"its {scaler.target_property} is unknown during preview: which capacity it "
                "sizes is not known",
                True,
            )
        if not isinstance(value, str) or value in UNREADABLE_OFFLINE:
            return (
                f"its {scaler.target_property} is not read offline: which capacity it sizes "
                "is not known",
                False,
            )
        return None


def _part_key(parts: tuple[GpuFootprint, ...], part: str | None) -> str | Literal[False] | None:
    """The key a scaler of ``part`` sizes a resource of these footprints under: None for all
    of it (a resource of one part, or no part named); False for a part it does not hold with
    GPUs (a CPU variant)."""
    names = {f.part for f in parts}
    if part is None or None in names:
        return None
    return part if part in names else False


def _unlinked_footprint(r: StackResource, scaler: Scaler, why: str, unknown: bool) -> GpuFootprint:
    """A scaler that moves GPU capacity gpufleet cannot follow, as capacity of its own whose
    size is not known: reported and unpriced, never passed."""
    module = r.type.split(":")[1].split("/")[0] if r.type.count(":") >= 2 else r.type
    return GpuFootprint(
        cloud=cloud_of_type(r.type) or "aws",
        kind=f"{module} {r.type.rsplit(':', 1)[-1]}",
        is_template=False,
        undetermined=(why, *scaler.undetermined),
        unknown=unknown and (scaler.unknown or not scaler.undetermined),
    )


# The properties that name a resource in the cloud: what a scaler's target can hold.
_NAME_PROPERTIES = (
    "name",
    "vmScaleSetName",
    "autoScalingGroupName",
    "arn",
    "selfLink",
    "id",
    "policyId",
    "environmentName",
)


def _resources_by_name(resources: list[StackResource]) -> dict[str, list[str]]:
    index: dict[str, list[str]] = {}
    for r in resources:
        for key in _NAME_PROPERTIES:
            value = r.props.get(key)
            if isinstance(value, str) and value and not is_unknown(value):
                index.setdefault(value.lower(), []).append(r.urn)
    return index


class _Names:
    """The stack's resources by the names they have in the cloud, indexed when first asked."""

    def __init__(self, resources: list[StackResource]) -> None:
        self._resources = resources
        self._index: dict[str, list[str]] | None = None

    def of(self, value: Any) -> list[str]:
        if self._index is None:
            self._index = _resources_by_name(self._resources)
            for r in self._resources:
                # A GCE template's self link with its unique id, as a version may give it.
                unique = r.props.get("selfLinkUnique")
                if isinstance(unique, str) and unique and not is_unknown(unique):
                    self._index.setdefault(unique.lower(), []).append(r.urn)
        return _named_targets(value, self._index)


def _named_templates(
    r: StackResource, properties: tuple[str, ...], names: _Names, by_urn: dict[str, StackResource]
) -> set[str]:
    """The launch templates of the stack that ``r`` names in ``properties`` by a literal name,
    id or URL (no Output, so no dependency)."""
    found: set[str] = set()
    for prop in properties:
        for value in _strings(r.props.get(prop)):
            found.update(
                urn
                for urn in names.of(value)
                if urn != r.urn and by_urn[urn].type in types.LAUNCH_TEMPLATES
            )
    return found


def _strings(value: Any, depth: int = 0) -> list[str]:
    """The strings in a property value (a template spec, a list of versions), shallowly."""
    if isinstance(value, str):
        return [value]
    if depth > 4:
        return []
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v, depth + 1)]
    if isinstance(value, list):
        return [s for v in value[:64] for s in _strings(v, depth + 1)]
    return []


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
    ) -> tuple[float, str | None]:
        """Take ``footprint``'s instances from the stack reservations it runs in: how many
        they hold (those the reservations pay for), and why not all of them when not."""
        if footprint.market_outside_reservation == "spot":
            return 0.0, "spot capacity cannot run in a reservation"
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
                return 0.0, RESERVATION_UNKNOWN
            return 0.0, "is not in this stack for its machine"
        wanted = footprint.max_units
        if wanted is not None and footprint.fixed_share is not None:
            # Its fixed version was matched on its own: the rest of the group is what runs here.
            wanted = max(wanted - (footprint.fixed_share.max_units or 0.0), 0.0)
        if wanted is None:
            return 0.0, "cannot be matched to it (its size is not known)"
        covered = 0.0
        for urn in fitting:
            taken = min(wanted - covered, self._left[urn])
            self._left[urn] -= taken
            covered += taken
        if covered < wanted:
            return covered, (
                f"holds {covered:g} of its {wanted:g} (what is left of it covers other capacity)"
                if covered
                else "has no room left for it (what it holds covers other capacity)"
            )
        return covered, None


def resolve_reservation(
    footprint: GpuFootprint,
    resource: StackResource,
    reservations: Reservations,
    templates: Sequence[StackResource],
) -> GpuFootprint:
    """Capacity in a reservation runs at no cost of its own only when a reservation of the
    stack holds its machine and has room for it; otherwise the stack pays for it like any
    capacity (the reservation is priced too), and says why."""
    covered, why = reservations.cover(footprint, resource, templates)
    if why is None:
        return footprint
    if covered and footprint.fixed_share is None:
        # Its first instances run in the reservation (paid there); the rest pay their way.
        most = footprint.max_units or covered
        held = replace(
            footprint,
            max_units=covered,
            expected_units=None
            if footprint.expected_units is None
            else min(footprint.expected_units, covered),
            # What its schedule runs, shared in proportion: exact for a schedule between
            # zero and its max size, as schedules run groups.
            weekly_use=None
            if footprint.weekly_use is None
            else footprint.weekly_use * covered / most,
            notes=(),
        )
        where = ", ".join(footprint.reservation_names) or "a reservation"
        return replace(
            footprint,
            market=footprint.market_outside_reservation or "on_demand",
            fixed_share=held,
            notes=(
                *footprint.notes,
                f"runs in {where}, which {why}: the rest priced at its own rate",
            ),
        )
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

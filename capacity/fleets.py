"""Which fleet each piece of GPU capacity belongs to, when it is a member of a larger one.

A fleet is what one decision sizes: a group, a pool, a cluster. Most capacity resources are a
fleet of their own; some are members of another resource that is the fleet, and counted as
one with it (``gpu-fleet-size``), or a limit per fleet could be met by cutting one fleet into
many resources:

- an Azure VM of a flexible-orchestration scale set names the set (``virtualMachineScaleSet``):
  it is one of the set's VMs;
- a GCP unmanaged instance group lists the VMs it holds (``instances``): they are its members.

Members are found through the property dependencies the engine records (a preview knows them
while ids are unknown), else by the id, name or self link written.
"""

from __future__ import annotations

from gpufleet import resource_types as types
from gpufleet.capacity.property_values import as_list, get_path, is_unknown, resource_name
from gpufleet.capacity.stack_resource import StackResource

# Capacity that names the fleet it belongs to: its type -> the property that names it.
MEMBER_OF: dict[str, tuple[str, ...]] = {
    types.AZURE_VIRTUAL_MACHINE: ("virtualMachineScaleSet", "id"),
}
# A resource that lists its members: its type -> the property listing them.
MEMBERS: dict[str, str] = {
    "gcp:compute/instanceGroup:InstanceGroup": "instances",
}

_NAMES = ("id", "selfLink", "name", "vmScaleSetName")


def fleets(resources: list[StackResource]) -> dict[str, str]:
    """Member URN -> the URN of the fleet it belongs to, for the members this stack's
    resources say belong to one of its resources."""
    by_name: dict[str, str] = {}
    for r in resources:
        for key in _NAMES:
            value = r.props.get(key)
            if isinstance(value, str) and value and not is_unknown(value):
                by_name.setdefault(value.lower(), r.urn)
                by_name.setdefault((resource_name(value) or "").lower(), r.urn)
    by_name.pop("", None)
    found: dict[str, str] = {}
    for r in resources:
        path = MEMBER_OF.get(r.type)
        if path is not None:
            fleet = _named(r, path[0], get_path(r.props, *path), by_name)
            if fleet is not None and fleet != r.urn:
                found[r.urn] = fleet
        listed = MEMBERS.get(r.type)
        if listed is not None:
            linked = r.property_dependencies.get(listed, [])
            named = [_lookup(v, by_name) for v in as_list(r.props.get(listed))]
            for member in {*linked, *(n for n in named if n is not None)}:
                if member != r.urn:
                    found.setdefault(member, r.urn)
    return found


def _named(r: StackResource, prop: str, value: object, by_name: dict[str, str]) -> str | None:
    """The resource ``r`` names through ``prop``: its dependency, else the name written."""
    linked = r.property_dependencies.get(prop, [])
    if linked:
        return linked[0]
    return _lookup(value, by_name)


def _lookup(value: object, by_name: dict[str, str]) -> str | None:
    if not isinstance(value, str) or not value or is_unknown(value):
        return None
    return by_name.get(value.lower()) or by_name.get((resource_name(value) or "").lower())

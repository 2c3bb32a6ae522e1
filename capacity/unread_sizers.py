"""GPU capacity whose size a resource gpufleet does not read sets is undetermined.

A resource of a sizing type nothing reads (``footprints.coverage.unread_sizing_types``: an
actuator no one listed), or of a package gpufleet has no tables for (``aws-native:``,
``google-native:``, ``azure:``, ``kubernetes:``, a remote component) whose properties look like
a size — a minimum, maximum, desired or target capacity, size, count, replicas, instances or
nodes, a resize — makes the GPU capacity of the stack it targets undetermined: "its size is set
by <type> <name>, which gpufleet does not read", never passed at the size that capacity
declares. Its target is found as a scaler's is: through its property dependencies (directly,
or through one resource that holds no capacity itself, such as an endpoint in front of its
configuration), else by a name, id, ARN or URL it holds.

Cheap on large stacks: a resource's type decides whether it is looked at; only resources of
other packages have their keys searched, within limits.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from gpufleet.capacity.footprints.coverage import unread_sizing_types
from gpufleet.capacity.footprints.model import GpuFootprint
from gpufleet.capacity.property_values import is_unknown
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.clouds import PULUMI_PACKAGES

# The packages the SDK tables cover: their sizing types are classified by the table.
TABLE_PACKAGES = frozenset(PULUMI_PACKAGES.values())
# The engine's own resources and gpufleet's components size nothing.
_NOT_SIZERS = frozenset({"pulumi", "gpufleet"})

# A property that looks like a size, its name in lower case without separators
# (``maxCapacity``, ``min_size``, ``DesiredCount``, ``maxNumReplicas``, ``MaxReadyCapacity``),
# or the bounds of a ``capacity`` object (an autoscale profile's ``capacity.maximum``).
_SIZING_KEY = re.compile(
    r"^(?:min|max|minimum|maximum|desired|target)(?:ready|total|idle|num|numof)?"
    r"(?:capacity|capacityunits|size|count|replicas?|replicacount|instances?|instancecount"
    r"|nodes?|nodecount|workers?|workercount|tasks?|taskcount)$"
    r"|^(?:resizeby|scalabledimension|scalingadjustment)$"
)
_SEPARATORS = re.compile(r"[_\-.]")
_BOUND = re.compile(r"^(?:minimum|maximum|default)$")
# Not searched for a target's name: the resource's own names, its tags and labels.
_OWN_NAMES = frozenset({"name", "id", "arn", "selflink", "urn", "description", "displayname"})
_NOT_SEARCHED = frozenset({"tags", "tagsall", "labels", "resourcelabels", "userlabels"})
# The properties that name GPU capacity in the cloud, matched against what a sizer holds.
_CAPACITY_NAMES = (
    "name",
    "id",
    "arn",
    "selfLink",
    "autoScalingGroupName",
    "vmScaleSetName",
    "endpointConfigName",
)
_MAX_VALUES = 2_000
_MAX_DEPTH = 8


def set_by_unread(
    resources: list[StackResource],
    by_urn: dict[str, StackResource],
    read: dict[str, tuple[GpuFootprint, ...]],
) -> dict[str, tuple[str, ...]]:
    """For each GPU capacity of the stack that a resource gpufleet does not read sizes (its
    URN), why its size is undetermined."""
    capacity = {urn for urn, parts in read.items() if any(not p.is_template for p in parts)}
    if not capacity:
        return {}
    unread_types = unread_sizing_types()
    names: _Names | None = None
    found: dict[str, list[str]] = {}
    for r in resources:
        if r.urn in capacity:
            continue  # capacity itself: sized by its own reader
        why = _unread_sizer(r, unread_types)
        if why is None:
            continue
        targets = _dependent_targets(r, by_urn, capacity)
        if not targets:
            names = names if names is not None else _Names([by_urn[u] for u in capacity])
            targets = names.named_in(r.props)
        for urn in targets:
            found.setdefault(urn, []).append(why)
    return {urn: tuple(dict.fromkeys(whys)) for urn, whys in found.items()}


def undetermined_by(footprint: GpuFootprint, whys: Iterable[str]) -> GpuFootprint:
    """A footprint whose size resources gpufleet does not read set."""
    return replace(
        footprint, undetermined=(*footprint.undetermined, *whys), unknown=False, weekly_use=None
    )


def _unread_sizer(r: StackResource, unread_types: frozenset[str]) -> str | None:
    """Why a resource sizes capacity gpufleet does not read; None for one that does not."""
    if r.type in unread_types:
        return f"its size is set by {r.type} {r.name}, which gpufleet does not read"
    package = r.type.split(":", 1)[0]
    if package in TABLE_PACKAGES or package in _NOT_SIZERS or not r.holds_capacity_itself:
        return None
    key = _sizing_key(r.props)
    if key is None:
        return None
    return f"its size is set by {r.type} {r.name} ({key}), which gpufleet does not read"


def _sizing_key(props: dict[str, Any]) -> str | None:
    """The path of the first property that looks like a size, searched within limits."""
    pending: list[tuple[str, str, Any, int]] = [("", "", props, 0)]
    seen = 0
    while pending and seen < _MAX_VALUES:
        path, parent, value, depth = pending.pop()
        seen += 1
        if depth > _MAX_DEPTH:
            continue
        if isinstance(value, dict):
            for key, child in value.items():
                plain = _SEPARATORS.sub("", str(key)).lower()
                where = f"{path}.{key}" if path else str(key)
                if plain in _NOT_SEARCHED:
                    continue
                sizing = _SIZING_KEY.match(plain) or (
                    _BOUND.match(plain) and parent.endswith("capacity")
                )
                if sizing and child is not None and child is not False:
                    return where
                pending.append((where, plain, child, depth + 1))
        elif isinstance(value, list):
            pending.extend((path, parent, item, depth + 1) for item in value)
    return None


def _dependent_targets(
    r: StackResource, by_urn: dict[str, StackResource], capacity: set[str]
) -> list[str]:
    """The GPU capacity its properties depend on; else the capacity the resources they depend
    on (holding none themselves) depend on: an endpoint before its configuration."""
    deps = list(dict.fromkeys(u for urns in r.property_dependencies.values() for u in urns))
    direct = [u for u in deps if u in capacity]
    if direct:
        return direct
    return list(
        dict.fromkeys(
            target
            for u in deps
            if u in by_urn and u != r.urn
            for urns in by_urn[u].property_dependencies.values()
            for target in urns
            if target in capacity and target != r.urn
        )
    )


class _Names:
    """The names, ids, ARNs and URLs of the stack's GPU capacity."""

    def __init__(self, capacity: list[StackResource]) -> None:
        self.index: dict[str, list[str]] = {}
        for c in capacity:
            for key in _CAPACITY_NAMES:
                value = c.props.get(key)
                if isinstance(value, str) and value.strip() and not is_unknown(value):
                    self.index.setdefault(value.strip().lower(), []).append(c.urn)

    def named_in(self, props: dict[str, Any]) -> list[str]:
        """The capacity a resource's strings name (the whole string, or its last path
        segment), its own names and tags left out."""
        if not self.index:
            return []
        found: list[str] = []
        pending: list[tuple[Any, int]] = [
            (v, 1)
            for k, v in props.items()
            if _SEPARATORS.sub("", str(k)).lower() not in _OWN_NAMES | _NOT_SEARCHED
        ]
        seen = 0
        while pending and seen < _MAX_VALUES:
            value, depth = pending.pop()
            seen += 1
            if isinstance(value, str):
                text = value.strip().lower()
                last = text.rstrip("/").rsplit("/", 1)[-1]
                found += self.index.get(text, []) or self.index.get(last, [])
            elif depth <= _MAX_DEPTH and isinstance(value, dict):
                pending.extend(
                    (v, depth + 1)
                    for k, v in value.items()
                    if _SEPARATORS.sub("", str(k)).lower() not in _NOT_SEARCHED
                )
            elif depth <= _MAX_DEPTH and isinstance(value, list):
                pending.extend((v, depth + 1) for v in value)
        return list(dict.fromkeys(found))

"""Application Auto Scaling: scalable targets and scheduled actions that size another
resource's capacity.

A scalable target (``aws:appautoscaling/target:Target``) holds the capacity its resource id
and scalable dimension name between its ``minCapacity`` and ``maxCapacity``. Three dimensions
move capacity gpufleet reads, and are read as bounds of it: a SageMaker endpoint's variant
(``endpoint/<endpoint>/variant/<variant>``: that variant of the endpoint configuration the
endpoint names), a Spot Fleet request's target capacity (``spot-fleet-request/<id>``) and an
EMR instance group's count (``instancegroup/<cluster>/<group>``: a task group of its own, or
the cluster's core group). Dimensions of services that run no GPUs of their own are no scaler
of GPU capacity. Any other dimension (AppStream fleets, WorkSpaces pools, custom resources, one
not known here) moves capacity gpufleet does not size: what it links to is undetermined.

A scheduled action (``aws:appautoscaling/scheduledAction:ScheduledAction``) sets a target's
min and max capacity for a while: it raises the most the target holds, as an Auto Scaling
group's scheduled actions do; its schedule is not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gpufleet import resource_types as types
from gpufleet.capacity.footprints.reading import Reading, Scaler, shown, sizes
from gpufleet.capacity.property_values import is_unknown
from gpufleet.engine.wire import UNREADABLE_OFFLINE

_NOT_READ = UNREADABLE_OFFLINE

# Namespaces whose targets hold no GPUs: tables, databases, functions, caches, streams, and
# ECS services, whose tasks run on capacity read where it is declared (Fargate runs no GPUs).
_NO_GPU_NAMESPACES = frozenset(
    {
        "cassandra",
        "comprehend",
        "dynamodb",
        "ecs",
        "elasticache",
        "kafka",
        "lambda",
        "neptune",
        "rds",
    }
)
_NO_GPU_DIMENSIONS = frozenset(
    {
        # Serverless variants run no instances.
        "sagemaker:variant:desiredprovisionedconcurrency",
        # Copies of a model placed on the endpoint's instances, which its variant's managed
        # instance scaling sizes (read with the endpoint configuration).
        "sagemaker:inference-component:desiredcopycount",
    }
)


@dataclass(frozen=True)
class _Shape:
    """How a dimension's resource id names the capacity it sizes."""

    pattern: re.Pattern[str]
    written: str  # the shape, for messages
    part: str | None  # the part of its target it sizes (None: from the id, or all of it)
    through: tuple[str, ...] = ()


# The dimensions (lower case) whose capacity gpufleet reads; each pattern's groups are the
# names the id gives, most specific first.
_READ: dict[str, _Shape] = {
    "sagemaker:variant:desiredinstancecount": _Shape(
        re.compile(r"endpoint/([^/]+)/variant/([^/]+)"),
        "endpoint/<endpoint name>/variant/<variant name>",
        None,
        ("endpointConfigName",),
    ),
    "ec2:spot-fleet-request:targetcapacity": _Shape(
        re.compile(r"spot-fleet-request/([^/]+)"), "spot-fleet-request/<id>", None
    ),
    "elasticmapreduce:instancegroup:instancecount": _Shape(
        re.compile(r"instancegroup/([^/]+)/([^/]+)"),
        "instancegroup/<cluster id>/<instance group id>",
        "core",
    ),
}


_ALL_THROUGH = tuple(dict.fromkeys(p for shape in _READ.values() for p in shape.through))


def _link(r: Reading, resource_id: Any) -> dict[str, Any] | None:
    """How a target or scheduled action links to the capacity it sizes (``Scaler`` fields);
    None for a dimension of a service that holds no GPUs."""
    # A dimension it cannot read may be any: its links are followed every way a read one's are.
    unread = {"must_link": True, "through": _ALL_THROUGH}
    dimension = r.get("scalableDimension")
    if r.unreadable(dimension, "scalableDimension"):
        return unread
    if not isinstance(dimension, str) or not dimension.strip():
        r.undetermined.append(f"scalableDimension {shown(dimension)} is not a dimension")
        return unread
    written = dimension.strip()
    key = written.lower()
    if key.split(":", 1)[0] in _NO_GPU_NAMESPACES or key in _NO_GPU_DIMENSIONS:
        return None
    shape = _READ.get(key)
    if shape is None:
        r.undetermined.append(
            f"Application Auto Scaling sizes it by {written}, which gpufleet does not read: "
            "how many GPUs it holds is not known"
        )
        return unread
    fields: dict[str, Any] = {"must_link": True, "part": shape.part, "through": shape.through}
    variant = key.startswith("sagemaker:variant")
    if not isinstance(resource_id, str) or resource_id in _NOT_READ or is_unknown(resource_id):
        # Linked by its dependencies alone; which variant it sizes is in the id alone, so
        # unread, it sizes any of them.
        if variant and not r.unreadable(resource_id, "resourceId"):
            r.undetermined.append(f"resourceId {shown(resource_id)} is not {shape.written}")
        return fields
    found = shape.pattern.fullmatch(resource_id.strip())
    if found is None:
        r.undetermined.append(f"resourceId {shown(resource_id)} is not {shape.written}")
    elif variant:
        fields |= {"names": (found[1],), "part": found[2]}
    else:
        fields["names"] = tuple(reversed(found.groups()))
    return fields


@sizes(types.AWS_APPAUTOSCALING_TARGET)
def scalable_target(r: Reading) -> Scaler | None:
    """A scalable target: its capacity runs from ``minCapacity`` up to ``maxCapacity``, as its
    scaling policies decide."""
    link = _link(r, r.get("resourceId"))
    if link is None:
        return None
    unlinked = len(r.undetermined)
    least = r.count("minCapacity", where="minCapacity")
    most = r.count("maxCapacity", where="maxCapacity")
    r.at_most(least, "min capacity", most, "max capacity")
    sized = least is not None and most is not None and len(r.undetermined) == unlinked
    # Bounds only when all of it is read; else its max still raises what the capacity holds.
    bounds = sized and not unlinked
    return Scaler(
        "resourceId",
        least if bounds else None,
        most if sized else None,
        active=True,
        undetermined=tuple(r.undetermined),
        bounds=bounds,
        **link,
    )


@sizes(types.AWS_APPAUTOSCALING_SCHEDULED_ACTION)
def scheduled_action(r: Reading) -> Scaler | None:
    """A scheduled action of a scalable target: for a while its capacity may reach the min
    or max it sets; the target's own bounds hold otherwise."""
    link = _link(r, r.get("resourceId"))
    if link is None:
        return None
    action = ("scalableTargetAction",)
    sizes_set = [
        r.count(*action, key, where=f"scalableTargetAction.{key}")
        for key in ("minCapacity", "maxCapacity")
        if r.get(*action, key) is not None
    ]
    return Scaler(
        "resourceId",
        None,
        max((size for size in sizes_set if size is not None), default=None),
        active=True,
        undetermined=tuple(r.undetermined),
        schedule_unread="an Application Auto Scaling scheduled action sets its min or max capacity",
        bounds=False,
        **link,
    )

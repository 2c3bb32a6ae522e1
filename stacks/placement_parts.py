"""Which components build a planned placement.

One rule, used by ``gpufleet generate`` (it writes the parts into the stack config) and
documented in docs/stacks.md's placement table (a test keeps the two together). A placement's base
needs one kind of capacity, and is built by the component of its cloud that realizes it with
the placement's pricing (``planner.capabilities``: the preferred one):

- the capacity of a managed service (``managed``): the service's component;
- a multi-node job (training or batch on more than one instance): ``multi_node`` — cluster
  networking, one zone;
- the always-on base of serving on a commitment: ``reserved`` — the commitment buys capacity
  held for serving;
- anything else: ``fleet`` — spot by default, on-demand when the plan says so.

A burst above an always-on base is a second part, built by a ``fleet`` component, which
scales it on the base's load (on GCP as a second version of the base's group, whose autoscaler
reads only its own group).
A reserved part holds capacity; the commitment discount itself (Savings Plan, committed use
discount, Azure reservation) is a billing purchase, made outside Pulumi unless the stack buys
it (``site:gcp`` ``purchaseCommitments``).
"""

from __future__ import annotations

from gpufleet.planner.capabilities import (
    Capability,
    PlacementKind,
    ScalingMode,
    capacity_need,
    component_for,
)
from gpufleet.planner.hours import HoursModel
from gpufleet.planner.managed_services import Managed
from gpufleet.planner.plan import Placement
from gpufleet.pricing_models import HOURS_PER_MONTH, Pricing
from gpufleet.stacks.stack_config import Part


def base_need(placement: Placement) -> PlacementKind | Managed:
    """The kind of capacity a placement's base needs."""
    return capacity_need(placement.kind, placement.managed, placement.instances, placement.pricing)


def placement_parts(placement: Placement) -> list[Part]:
    """The parts, each with how its size follows the plan's hours: an always-on base is fixed;
    above it, the burst sits at zero until scaled (on request) or follows the schedule; without
    a base, the one part follows the workload's hours model. A schedule of the whole week is
    a fixed size."""
    cloud = placement.cloud
    base = component_for(cloud, base_need(placement), placement.pricing, placement.runs_on)
    burst = placement.burst if placement.burst is not None and placement.burst.instances else None
    if burst is not None:
        base_part = Part(
            component=base.name, instances=placement.instances, pricing=placement.pricing
        )
        fleet = component_for(cloud, "fleet", burst.pricing)
        # Above an always-on base, the burst follows the base's load; above a scheduled one,
        # the schedule.
        burst_scaling: ScalingMode = "on_load"
        if placement.hours_model == "schedule":
            burst_scaling = "fixed" if _whole_week(placement) else "schedule"
        return [
            base_part,
            _part(
                fleet,
                burst.instances,
                burst.pricing,
                burst_scaling,
                burst.billed_hours,
            ),
        ]
    scaling = "fixed" if _whole_week(placement) else _SCALING[placement.hours_model]
    return [
        _part(
            base,
            placement.instances,
            placement.pricing,
            scaling,
            placement.billed_hours,
            placement.runs,
        )
    ]


def _part(
    entry: Capability,
    instances: int,
    pricing: Pricing,
    scaling: ScalingMode,
    hours: float,
    runs: int = 0,
) -> Part:
    if scaling in ("schedule", "on_load") and scaling not in entry.follows:
        scaling = "on_request"  # at zero until a run asks; the same hours expected
    if scaling != "fixed" and scaling not in entry.follows:
        scaling = "fixed"  # it builds its size all month (see README, Limitations)
    return Part(
        component=entry.name,
        instances=instances,
        pricing=pricing,
        scaling=scaling,
        # Expected use beyond the month (a spot job's overhead on top of 730 h) is a month;
        # rounded so a committed stack file reads 103.5, not 103.49999999999999.
        expected_hours=round(min(hours, HOURS_PER_MONTH), HOURS_DECIMALS)
        if scaling in ("on_request", "on_load")
        else None,
        expected_runs=runs if runs and scaling == "on_request" else None,
    )


# A millionth of an hour: far below a cent a month at any GPU price.
HOURS_DECIMALS = 6


_SCALING: dict[HoursModel, ScalingMode] = {
    "always_on": "fixed",
    "schedule": "schedule",
    "on_request": "on_request",
}


def _whole_week(placement: Placement) -> bool:
    """A schedule that runs the whole week starts and ends at the same minute: it is a size."""
    return placement.schedule is not None and placement.schedule.always

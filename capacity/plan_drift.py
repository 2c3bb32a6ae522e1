"""Which workloads' expected cost left the plan their stack was generated from.

A stack ``gpufleet generate`` wrote carries each workload's planned monthly cost
(``gpufleet:workloads``); the cost engine prices what its resources will really run. A hand
edit that does not go through the spec moves one away from the other. One rule, read by the
``plan-drift`` policy (its findings) and by ``gpufleet cost`` (a line in every format, so a pull
request's comment shows it too): a workload drifts when its expected cost is more than a
tolerance away from its plan, up or down; when its capacity cannot be priced (only unknown in
a preview: not yet, unless what is priced is already past the plan); when the plan names it and
the stack holds none of its GPU capacity; and capacity under a workload the plan does not name,
or under no workload tag, drifts from nothing at all. A reservation the plan puts on a
commitment that no held commitment pays for yet is compared at the plan's committed rate: the
commitment is still to buy, which the cost report shows; it is not a drift.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gpufleet.capacity.cost_engine import UNTAGGED, StackCost, WorkloadCost

DEFAULT_TOLERANCE = 0.01  # of the plan's figure
# Money is compared to the cent: a plan rounded to cents is not a drift of half of one.
_HALF_CENT = 0.005


@dataclass(frozen=True)
class Drift:
    workload: str
    plan: float | None  # None: the plan does not name it
    expected: float | None  # None: its cost cannot be compared (unpriced)
    message: str


def plan_drift(
    cost: StackCost, planned: Mapping[str, float], tolerance: float = DEFAULT_TOLERANCE
) -> list[Drift]:
    """The workloads of ``cost`` that left ``planned`` (name -> monthly USD); none without
    a plan."""
    if not planned:
        return []
    by_name = {w.name: w for w in cost.workloads}
    # Capacity whose workload tag a preview cannot know yet may be any planned workload's:
    # what is missing from a workload, and capacity under no tag, wait for the deploy.
    unsure = any(r.workload_unknown for r in cost.resources)
    found = [
        drift
        for name in sorted(planned)
        if (drift := _drift(by_name.get(name), name, planned[name], tolerance, unsure)) is not None
    ]
    for w in cost.workloads:
        if unsure and w.name == UNTAGGED:
            continue
        expected = w.total("expected")
        # Unpriced only until a preview's unknowns are known: known once deployed.
        unpriceable = [r for r in w.unpriced if not r.unknown]
        if w.name in planned or not (expected > 0 or unpriceable):
            continue
        what = (
            "GPU capacity under no workload tag"
            if w.name == UNTAGGED
            else f"workload {w.name} is not in the stack's plan but its GPU capacity"
        )
        costs = f"costs ${expected:,.2f}/month expected"
        if unpriceable:
            costs += f" and {len(unpriceable)} resource(s) cannot be priced"
        found.append(
            Drift(
                w.name,
                None,
                expected,
                f"{what} {costs}: the plan has none; add it to the spec and run gpufleet generate",
            )
        )
    return found


def _drift(
    workload: WorkloadCost | None, name: str, plan: float, tolerance: float, unsure: bool
) -> Drift | None:
    if workload is None or not workload.resources:
        if plan <= 0 or unsure:
            return None
        return Drift(
            name,
            plan,
            0.0,
            f"workload {name}: the plan's ${plan:,.2f}/month has no GPU capacity in the stack "
            "(removed by hand, or its workload tag changed)",
        )
    unpriced = [r for r in workload.unpriced if not r.unknown]
    if unpriced:
        listed = "; ".join(f"{r.name}: {r.unpriced}" for r in unpriced)
        return Drift(
            name,
            plan,
            None,
            f"workload {name}: its cost cannot be compared with its plan (${plan:,.2f}/month): "
            f"{listed}",
        )
    # Reserved capacity no held commitment pays for yet costs more than the plan, which
    # assumes the commitment it advises: not a drift from the plan, but a purchase to make
    # (the cost report shows it, and gpu-budget holds the stack to what it costs until then).
    awaiting = sum(r.uncommitted_usd for r in workload.resources if r.in_totals)
    expected = workload.total("expected") - awaiting
    if (workload.unpriced or unsure) and expected <= plan * (1 + tolerance) + _HALF_CENT:
        # Some of it is only unknown in a preview (known once deployed): what is priced
        # cannot fall short of the plan yet, but can already be past it.
        return None
    if abs(expected - plan) <= tolerance * plan + _HALF_CENT:
        return None
    change = f"{(expected - plan) / plan:+.1%}" if plan else "from $0"
    # What the resources say of it: their settings where those win over what they declare,
    # else the use they declare (a tag edited by hand shows here).
    said: list[str] = []
    for r in workload.resources:
        if "the settings win" in r.basis:
            said.append(f"{r.name}: {r.basis}")
        elif r.declared_minutes is not None:
            said.append(f"{r.name} declares {r.declared_minutes / 60:g} h a month")
    why = "; ".join(said) or ("its resources' sizes, schedules or scaling differ from the plan")
    if awaiting > 0:
        why += (
            f" (not counting ${awaiting:,.2f}/month its reservations cost until the commitments "
            "its plan assumes are held)"
        )
    return Drift(
        name,
        plan,
        expected,
        f"workload {name}: expected ${expected:,.2f}/month, plan ${plan:,.2f}/month ({change}): "
        f"{why}",
    )

"""Which components build a planned placement.

One rule, used by ``gpufleet generate`` (it writes the parts into the stack config) and
documented in the README; the component for each case and cloud is the registry entry with
that role (``component_registry``):

==========================  ===============================  =================================
placement                   role (AWS / GCP / Azure)          why
==========================  ===============================  =================================
managed service             the service's name                the managed service owns the
                            (SageMakerSpotTraining / — /      machines
                            LowPriorityCluster)
multi-node job              multi_node (PlacementCluster /    cluster networking, one zone
                            CompactCluster / SpotScaleSet
                            with proximity)
reserved (always-on base)   reserved (CapacityPool /          the commitment buys capacity
                            ReservationPool /                 held for serving
                            CapacityReservationGroup)
anything else, and bursts   fleet (SpotFleet / SpotGroup /    spot by default; on-demand when
                            SpotScaleSet)                     the plan says so
==========================  ===============================  =================================

A reserved part holds capacity; the commitment discount itself (Savings Plan, committed use
discount, Azure reservation) is a billing purchase made outside Pulumi.
"""

from __future__ import annotations

from gpufleet.planner.plan import Placement
from gpufleet.pricing_models import is_commitment
from gpufleet.stacks.component_registry import Role, component_for
from gpufleet.stacks.stack_config import Part


def _base_role(placement: Placement) -> Role:
    if placement.managed is not None:
        return placement.managed
    if placement.kind != "inference" and placement.instances > 1:
        return "multi_node"
    if is_commitment(placement.pricing):
        return "reserved"
    return "fleet"


def placement_parts(placement: Placement) -> list[Part]:
    cloud = placement.cloud
    base = component_for(cloud, _base_role(placement))
    parts = [Part(component=base.name, instances=placement.instances, pricing=placement.pricing)]
    if placement.burst is not None and placement.burst.instances > 0:
        parts.append(
            Part(
                component=component_for(cloud, "fleet").name,
                instances=placement.burst.instances,
                pricing=placement.burst.pricing,
            )
        )
    return parts

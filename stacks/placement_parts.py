"""Which components build a planned placement.

One rule table, used by ``gpufleet generate`` (it writes the parts into the stack config) and
documented in the README:

==========================  ===============================  =================================
placement                   AWS / GCP / Azure                 why
==========================  ===============================  =================================
managed service             SageMakerSpotTraining / — /       the managed service owns the
                            LowPriorityCluster                machines
multi-node job              PlacementCluster / CompactCluster cluster networking, one zone
                            / SpotScaleSet (+ proximity)
reserved (always-on base)   CapacityPool / ReservationPool /  the commitment buys capacity
                            CapacityReservationGroup          held for serving
anything else, and bursts   SpotFleet / SpotGroup /           spot by default; on-demand when
                            SpotScaleSet                      the plan says so
==========================  ===============================  =================================

A reserved part holds capacity; the commitment discount itself (Savings Plan, committed use
discount, Azure reservation) is a billing purchase made outside Pulumi.
"""

from __future__ import annotations

from gpufleet.planner.plan import Placement
from gpufleet.stacks.stack_config import ComponentName, Part

_MANAGED: dict[str, ComponentName] = {
    "sagemaker": "aws:SageMakerSpotTraining",
    "azureml": "azure:LowPriorityCluster",
}
_MULTI_NODE: dict[str, ComponentName] = {
    "aws": "aws:PlacementCluster",
    "gcp": "gcp:CompactCluster",
    "azure": "azure:SpotScaleSet",
}
_RESERVED: dict[str, ComponentName] = {
    "aws": "aws:CapacityPool",
    "gcp": "gcp:ReservationPool",
    "azure": "azure:CapacityReservationGroup",
}
_FLEET: dict[str, ComponentName] = {
    "aws": "aws:SpotFleet",
    "gcp": "gcp:SpotGroup",
    "azure": "azure:SpotScaleSet",
}


def placement_parts(placement: Placement) -> list[Part]:
    cloud = placement.cloud
    if placement.managed is not None:
        base = _MANAGED[placement.managed]
    elif placement.kind != "inference" and placement.instances > 1:
        base = _MULTI_NODE[cloud]
    elif placement.pricing.startswith("reserved"):
        base = _RESERVED[cloud]
    else:
        base = _FLEET[cloud]
    parts = [Part(component=base, instances=placement.instances, pricing=placement.pricing)]
    if placement.burst is not None and placement.burst.instances > 0:
        parts.append(
            Part(
                component=_FLEET[cloud],
                instances=placement.burst.instances,
                pricing=placement.burst.pricing,
            )
        )
    return parts

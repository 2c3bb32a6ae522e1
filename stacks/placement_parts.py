"""Which components build a planned placement.

One rule, used by ``gpufleet generate`` (it writes the parts into the stack config) and
documented in the README's placement table (a test keeps the two together). A placement's base
is built by the component with its role on its cloud (``component_registry``):

- the capacity of a managed service (``managed``): the role named after the service;
- a multi-node job (training or batch on more than one instance): ``multi_node`` — cluster
  networking, one zone;
- the always-on base of serving on a commitment: ``reserved`` — the commitment buys capacity
  held for serving;
- anything else: ``fleet`` — spot by default, on-demand when the plan says so.

A burst above an always-on base is a second part, built by the ``fleet`` component. A reserved
part holds capacity; the commitment discount itself (Savings Plan, committed use discount,
Azure reservation) is a billing purchase made outside Pulumi.
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

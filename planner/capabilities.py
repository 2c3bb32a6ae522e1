"""What each gpufleet component can realize: the one home that the planner, ``gpufleet
generate``, the components themselves, ``gpufleet scale`` and the tests read.

A component (``components/<cloud>/<module>.py``, named ``<cloud>:<Class>``) says:

- ``realizes``: the placements it can build. ``fleet``: groups of spot or on-demand machines,
  and a serving burst above an always-on base; ``multi_node``: a tightly coupled job's nodes
  (cluster networking, one zone); ``reserved``: capacity held all month for an always-on base
  on a commitment. None at all is a component used directly from a program, never chosen by
  the planner, built and tested like the rest;
- ``managed``: the managed service (``managed_services``) whose capacity it is, if any;
- ``pricings``: the pricing models it builds;
- ``follows``: the scalings its size can follow besides fixed (on request, on a schedule, a
  burst on its base's load); for one it cannot, ``placement_parts`` falls back and says so;
- ``group``: the kind of group ``gpufleet scale`` sizes (one ``runs/`` module each); None for
  capacity a run does not size (reserved capacity, a managed service's);
- ``holds_gpus``: False for capacity a run starts outside the stack (a SageMaker job from the
  SDK): the cost engine prices one run, outside the monthly totals;
- ``site_keys``: the ``site:`` settings it needs (``gpufleet generate`` warns when missing);
- ``preference``: among the components that realize a placement on a cloud with its pricing,
  the lowest is chosen, unless the workload names one (``runs_on``);
- ``one_zone``: its capacity runs in the one zone the plan names (a placement group, a
  zonal group), so it pays that zone's spot price, and cannot use spot in a zone without a
  spot offer; otherwise it spans the region's zones (``planner.rates``, ``SpotScope``).

Adding a component: its module, its entry here, its builder in ``stacks/component_registry``
(CONTRIBUTING, "Add a component"). No pulumi and no pydantic here: ``gpufleet plan`` and
``gpufleet generate`` read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from gpufleet.clouds import Cloud, is_cloud
from gpufleet.planner.managed_services import Managed
from gpufleet.planner.rates import SpotScope
from gpufleet.pricing_models import COMMITMENT_TERMS, Pricing, is_commitment

# How the stacks size one group to realize the plan's hours (``components.scaling``): fixed
# all month, at zero until a run asks, on the schedule, or (a serving burst) on its always-on
# base's load. Never on a group's own load alone: a group at zero has no instance, so no
# metric to start it.
ScalingMode = Literal["fixed", "on_request", "schedule", "on_load"]
PlacementKind = Literal["fleet", "multi_node", "reserved"]
PLACEMENT_KINDS: tuple[PlacementKind, ...] = get_args(PlacementKind)
# The kinds of group a run sizes (one ``runs/`` module each). An AWS fleet is counted in GPUs
# (its instance types are weighted by their GPUs), a placement cluster in nodes.
GroupKind = Literal[
    "aws_group_in_gpus", "aws_group_in_nodes", "gcp_group", "gcp_nodes", "azure_scale_set"
]
GROUP_KINDS: tuple[GroupKind, ...] = get_args(GroupKind)


@dataclass(frozen=True)
class Capability:
    """What one component can realize (see the module's docstring)."""

    name: str  # <cloud>:<Class>
    module_name: str  # its module under components/<cloud>/
    realizes: frozenset[PlacementKind]
    pricings: frozenset[Pricing]
    group: GroupKind | None
    site_keys: tuple[str, ...] = ()
    managed: Managed | None = None
    follows: frozenset[ScalingMode] = frozenset()
    holds_gpus: bool = True
    preference: int = 0
    one_zone: bool = False

    cloud: Cloud = field(init=False)  # from the name's prefix

    def __post_init__(self) -> None:
        cloud = self.name.split(":", 1)[0]
        if not is_cloud(cloud):
            raise ValueError(f"component {self.name!r} is not named <cloud>:<Name>")
        object.__setattr__(self, "cloud", cloud)

    @property
    def type_token(self) -> str:
        return f"gpufleet:{self.name}"

    @property
    def module(self) -> str:
        """The component's module (``gpufleet.components.<cloud>.<module_name>``)."""
        return f"gpufleet.components.{self.cloud}.{self.module_name}"

    def needed_site_keys(self, region: str) -> list[str]:
        return [key.format(region=region) for key in self.site_keys]

    def serves(self, need: PlacementKind | Managed, pricing: Pricing) -> bool:
        """Whether it realizes ``need`` (a placement kind, or a managed service's capacity)
        with ``pricing``."""
        realized = self.managed == need or need in self.realizes
        return realized and pricing in self.pricings

    @property
    def spot_scope(self) -> SpotScope:
        return "zone" if self.one_zone else "region"


_ALL_SCALING: frozenset[ScalingMode] = frozenset({"on_request", "schedule"})
# A fleet that can also follow its always-on base's load (a serving burst).
_BURST_SCALING: frozenset[ScalingMode] = frozenset({"on_request", "schedule", "on_load"})
_MARKET: frozenset[Pricing] = frozenset({"spot", "on_demand"})
_COMMITTED: frozenset[Pricing] = frozenset(COMMITMENT_TERMS)

_REGION = "site:{cloud}.regions.{{region}}"
_AWS_REGION = _REGION.format(cloud="aws")
_GCP_REGION = _REGION.format(cloud="gcp")
_AZURE_REGION = _REGION.format(cloud="azure")
_GCP_VM = ("site:gcp.project", "site:gcp.sourceImage")

CAPABILITIES: dict[str, Capability] = {
    c.name: c
    for c in (
        Capability(
            name="aws:SpotFleet",
            module_name="spot_fleet",
            realizes=frozenset({"fleet"}),
            pricings=_MARKET,
            group="aws_group_in_gpus",
            site_keys=(_AWS_REGION,),
            follows=_BURST_SCALING,
        ),
        Capability(
            name="aws:PlacementCluster",
            module_name="placement_cluster",
            realizes=frozenset({"multi_node"}),
            pricings=_MARKET,
            group="aws_group_in_nodes",
            site_keys=(_AWS_REGION,),
            follows=_ALL_SCALING,
            one_zone=True,
        ),
        Capability(
            name="aws:CapacityPool",
            module_name="capacity_pool",
            realizes=frozenset({"reserved"}),
            pricings=_COMMITTED,
            group=None,
            site_keys=(_AWS_REGION,),
            one_zone=True,
        ),
        Capability(
            name="aws:SageMakerSpotTraining",
            module_name="sagemaker_spot_training",
            realizes=frozenset(),
            managed="sagemaker",
            pricings=_MARKET,
            group=None,
            holds_gpus=False,
            follows=frozenset({"on_request"}),
        ),
        Capability(
            name="gcp:SpotGroup",
            module_name="spot_group",
            realizes=frozenset({"fleet"}),
            pricings=_MARKET,
            group="gcp_group",
            site_keys=(_GCP_REGION, *_GCP_VM),
            # on_load as its base group's burst version.
            follows=_BURST_SCALING,
            one_zone=True,
        ),
        Capability(
            name="gcp:CompactCluster",
            module_name="compact_cluster",
            realizes=frozenset({"multi_node"}),
            pricings=_MARKET,
            group="gcp_nodes",
            site_keys=(_GCP_REGION, *_GCP_VM),
            follows=frozenset({"on_request"}),
            one_zone=True,
        ),
        Capability(
            name="gcp:ReservationPool",
            module_name="reservation_pool",
            realizes=frozenset({"reserved"}),
            pricings=_COMMITTED,
            group=None,
            site_keys=(_GCP_REGION, *_GCP_VM),
            one_zone=True,
        ),
        Capability(
            name="azure:LowPriorityCluster",
            module_name="low_priority_cluster",
            realizes=frozenset(),
            managed="azureml",
            pricings=_MARKET,
            group=None,
            site_keys=(_AZURE_REGION,),
            follows=frozenset({"on_request"}),
        ),
        Capability(
            name="azure:SpotScaleSet",
            module_name="spot_scale_set",
            realizes=frozenset({"fleet", "multi_node"}),
            pricings=_MARKET,
            group="azure_scale_set",
            site_keys=(_AZURE_REGION, "site:azure.sshPublicKey"),
            follows=_BURST_SCALING,
        ),
        Capability(
            name="azure:CapacityReservationGroup",
            module_name="capacity_reservation_group",
            realizes=frozenset({"reserved"}),
            pricings=_COMMITTED,
            group=None,
            site_keys=(_AZURE_REGION, "site:azure.sshPublicKey"),
        ),
    )
}


def runs_as_one_job(kind: str, instances: int) -> bool:
    """Training or batch on more than one instance: a multi-node job (``multi_node``), whose
    nodes run together (fewer would be a different job)."""
    return kind != "inference" and instances > 1


def capacity_need(
    kind: str, managed: Managed | None, instances: int, pricing: Pricing
) -> PlacementKind | Managed:
    """The kind of capacity a placement's base needs: its managed service's; a multi-node
    job's; reserved for a commitment; else a fleet."""
    if managed is not None:
        return managed
    if runs_as_one_job(kind, instances):
        return "multi_node"
    if is_commitment(pricing):
        return "reserved"
    return "fleet"


def known_component(name: str) -> str:
    """``name`` if it is a component's (a validator for the spec and the stack config)."""
    if name not in CAPABILITIES:
        raise ValueError(f"unknown component {name!r}; gpufleet has: {', '.join(CAPABILITIES)}")
    return name


def component_for(
    cloud: Cloud, need: PlacementKind | Managed, pricing: Pricing, chosen: str | None = None
) -> Capability:
    """The component that builds ``need`` on ``cloud`` with ``pricing``: ``chosen`` (a
    workload's ``runs_on``) when it can, else the preferred of those that can; LookupError,
    saying what is missing, when none can."""
    able = sorted(
        (c for c in CAPABILITIES.values() if c.cloud == cloud and c.serves(need, pricing)),
        key=lambda c: (c.preference, c.name),
    )
    if chosen is not None:
        found = [c for c in able if c.name == chosen]
        if not found:
            names = ", ".join(c.name for c in able) or "none"
            raise LookupError(
                f"{chosen} does not build {need} capacity on {cloud} priced {pricing} "
                f"(components that do: {names})"
            )
        return found[0]
    if not able:
        raise LookupError(
            f"no component builds {need} capacity on {cloud} priced {pricing}: add one to "
            "planner/capabilities.py (CONTRIBUTING, Add a component)"
        )
    return able[0]

"""What the policies of one request read once between them: a resource's GPU footprint, the
stack's GPU capacity and its cost.

The pack's servicer hands every policy of one ``Analyze`` the same props object and every stack
policy of one ``AnalyzeStack`` the same resource list (``policy_builders``); these memos read
each once per request (``same_input_memo``). Results are shared: policies must not modify them.
"""

from __future__ import annotations

from typing import Any

from gpufleet.capacity.cost_engine import StackCost, price_stack
from gpufleet.capacity.footprints import read_gpu_footprints
from gpufleet.capacity.footprints.model import GpuFootprint
from gpufleet.capacity.stack_capacity import StackCapacity, read_resource
from gpufleet.capacity.stack_capacity import stack_footprints as _stack_footprints
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.planner.rates import shipped_rate_card
from gpufleet.policies.policy_builders import ResourceView
from gpufleet.policies.same_input_memo import SameInputMemo
from gpufleet.policies.stack_limits import stack_limits


class _ReadByUrn:
    """What was read of each resource, by URN: the engine sends a resource to ``Analyze`` and
    then again, in the stack, to ``AnalyzeStack``; the stack's read takes the first one's
    footprints when the resource is read the same way (type, properties, provider compared by
    value, not assumed: an export's state holds outputs its inputs do not). Shared between
    the server's threads (a lost race only reads again); an entry goes when the stack takes
    it, and the whole is bounded, for a long-lived pack."""

    LIMIT = 100_000

    def __init__(self) -> None:
        self._reads: dict[str, tuple[tuple[Any, ...], tuple[GpuFootprint, ...]]] = {}

    def remember(self, urn: str, how: tuple[Any, ...], found: tuple[GpuFootprint, ...]) -> None:
        if len(self._reads) >= self.LIMIT:
            self._reads.clear()
        self._reads[urn] = (how, found)

    def recall(self, urn: str, how: tuple[Any, ...]) -> tuple[GpuFootprint, ...] | None:
        # Taken, not kept: the stack reads each resource once (its properties go with it).
        held = self._reads.pop(urn, None)
        if held is None or held[0] != how or not _same_types(held[0], how):
            return None
        return held[1]


def _same_types(a: Any, b: Any) -> bool:
    """For values already equal: whether they are equal in type too (``True == 1.0``, and a
    reader takes a boolean for no size at all)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return all(_same_types(value, b[key]) for key, value in a.items())
    if isinstance(a, list | tuple):
        return all(_same_types(x, y) for x, y in zip(a, b, strict=True))
    return True


_read_by_urn = _ReadByUrn()


def _read_by_props(
    props: dict[str, Any], type_: str, provider_props: dict[str, Any], last_net: bool, urn: str
) -> tuple[GpuFootprint, ...]:
    found = read_gpu_footprints(type_, props, provider_props, last_net=last_net)
    _read_by_urn.remember(urn, (type_, props, provider_props, last_net), found)
    return found


_footprint_memo = SameInputMemo(_read_by_props)


def shared_gpu_footprints(resource: ResourceView) -> tuple[GpuFootprint, ...]:
    """``read_gpu_footprints`` for resource policies: the last net only for resources of a
    cloud, not a component's registered outputs."""
    return _footprint_memo(
        resource.props, resource.type, resource.provider_props, resource.has_provider, resource.urn
    )


def _read_resource(
    r: StackResource, props: dict[str, Any], provider_props: dict[str, Any] | None
) -> tuple[GpuFootprint, ...]:
    found = _read_by_urn.recall(r.urn, (r.type, props, provider_props or {}, r.has_provider))
    return found if found is not None else read_resource(r, props, provider_props)


def _footprints(resources: list[StackResource]) -> list[StackCapacity]:
    return _stack_footprints(resources, _read_resource)


_footprints_memo = SameInputMemo(_footprints)


def stack_footprints(resources: list[StackResource]) -> list[StackCapacity]:
    """Every GPU resource of the stack, templates resolved (``capacity.stack_capacity``)."""
    return _footprints_memo(resources)


def stack_capacity(resources: list[StackResource]) -> list[StackCapacity]:
    """The capacity resources only, templates left out."""
    return [c for c in stack_footprints(resources) if not c.footprint.is_template]


def _price(resources: list[StackResource]) -> StackCost:
    limits = stack_limits()
    rates = shipped_rate_card(limits.commitment_discounts)
    return price_stack(
        resources,
        rates,
        capacity=stack_capacity(resources),
        commitments=limits.commitments,
        zones=limits.zones,
    )


_cost_memo = SameInputMemo(_price)


def stack_cost(resources: list[StackResource]) -> StackCost:
    """The stack's GPU cost (``capacity.cost_engine``), as ``gpufleet cost`` prices it."""
    return _cost_memo(resources)

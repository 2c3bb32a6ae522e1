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
from gpufleet.capacity.stack_capacity import StackCapacity
from gpufleet.capacity.stack_capacity import stack_footprints as _stack_footprints
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.planner.rates import shipped_rate_card
from gpufleet.policies.policy_builders import ResourceView
from gpufleet.policies.same_input_memo import SameInputMemo
from gpufleet.policies.stack_limits import stack_limits


def _read_by_props(
    props: dict[str, Any], type_: str, provider_props: dict[str, Any], last_net: bool
) -> Any:
    return read_gpu_footprints(type_, props, provider_props, last_net=last_net)


_footprint_memo = SameInputMemo(_read_by_props)


def shared_gpu_footprints(resource: ResourceView) -> tuple[GpuFootprint, ...]:
    """``read_gpu_footprints`` for resource policies: the last net only for resources of a
    cloud, not a component's registered outputs."""
    return _footprint_memo(
        resource.props, resource.type, resource.provider_props, resource.has_provider
    )


_footprints_memo = SameInputMemo(_stack_footprints)


def stack_footprints(resources: list[StackResource]) -> list[StackCapacity]:
    """Every GPU resource of the stack, templates resolved (``capacity.stack_capacity``)."""
    return _footprints_memo(resources)


def stack_capacity(resources: list[StackResource]) -> list[StackCapacity]:
    """The capacity resources only, templates left out."""
    return [c for c in stack_footprints(resources) if not c.footprint.is_template]


def _price(resources: list[StackResource]) -> StackCost:
    rates = shipped_rate_card(stack_limits().commitment_discounts)
    return price_stack(resources, rates, capacity=stack_capacity(resources))


_cost_memo = SameInputMemo(_price)


def stack_cost(resources: list[StackResource]) -> StackCost:
    """The stack's GPU cost (``capacity.cost_engine``), as ``gpufleet cost`` prices it."""
    return _cost_memo(resources)

"""Small stacks written by hand for the readers' tests: resources linked by property
dependencies (as the engine records them), and the capacity read from them."""

from __future__ import annotations

from typing import Any

from gpufleet.capacity.footprints.model import GpuFootprint
from gpufleet.capacity.stack_capacity import stack_capacity
from gpufleet.capacity.stack_resource import StackResource


def stack_resource(
    type_: str, name: str, props: dict[str, Any], **deps: list[str]
) -> StackResource:
    """A resource of URN ``urn::<name>``; ``deps``: property -> names of resources it
    depends on through that property."""
    return StackResource(
        type_,
        name,
        f"urn::{name}",
        props,
        {},
        None,
        {k: [f"urn::{u}" for u in v] for k, v in deps.items()},
    )


def capacity_by_name(resources: list[StackResource]) -> dict[str, GpuFootprint]:
    return {c.name: c.footprint for c in stack_capacity(resources)}

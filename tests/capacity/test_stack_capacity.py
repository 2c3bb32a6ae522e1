"""A whole stack's GPU capacity: templates found through property dependencies (known even in
a preview), capacity left out of it when its template is not in the stack, templates not
counted as capacity."""

from __future__ import annotations

from typing import Any

from gpufleet.capacity.stack_capacity import stack_capacity, stack_footprints
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.policies.testing import UNKNOWN


def resource(type_: str, name: str, props: dict[str, Any], **deps: list[str]) -> StackResource:
    return StackResource(type_, name, f"urn::{name}", props, {}, None, deps)


def test_a_group_takes_its_machines_from_the_template_it_depends_on() -> None:
    template = resource(
        "gcp:compute/instanceTemplate:InstanceTemplate",
        "tpl",
        {"machineType": "a3-highgpu-8g", "scheduling": {"provisioningModel": "SPOT"}},
    )
    group = resource(
        "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
        "group",
        {"targetSize": 3, "versions": [{"instanceTemplate": UNKNOWN}]},
        versions=["urn::tpl"],
    )
    (item,) = stack_capacity([template, group])
    assert item.resource is group and item.template is template
    assert (item.footprint.max_gpus, item.footprint.market) == (24, "spot")
    assert [i.resource.name for i in stack_footprints([template, group])] == ["tpl", "group"]


def test_a_group_without_its_template_is_undetermined() -> None:
    group = resource(
        "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
        "group",
        {"targetSize": 3},
        versions=["urn::elsewhere"],
    )
    (item,) = stack_capacity([group])
    assert item.footprint.undetermined == ("its template is not in this stack",)

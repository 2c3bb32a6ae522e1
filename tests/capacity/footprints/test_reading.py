"""The footprint readers' registry: every reader registered under its resource types once,
one module per cloud; templates resolved into the capacity that launches from them."""

from __future__ import annotations

import pytest

from gpufleet.capacity.footprints import GPU_RESOURCE_TYPES, read_gpu_footprint, resolve_template
from gpufleet.capacity.footprints.coverage import NAMED_MACHINE_TYPES
from gpufleet.capacity.footprints.reading import READERS, reads
from gpufleet.clouds import cloud_of_type


def test_each_cloud_module_registers_only_its_own_types() -> None:
    """Provider types by their package; gpufleet's own components (gpufleet:<cloud>:Name) by
    the cloud in their name (a cloud's module, or one of its service modules: ``aws_emr``);
    types read by name only are coverage's."""
    for type_, reader in READERS.items():
        module = reader.__module__.rsplit(".", 1)[1]
        if module == "coverage":
            assert type_ in NAMED_MACHINE_TYPES, type_
            continue
        package, rest = type_.split(":", 1)
        cloud = rest.split(":", 1)[0] if package == "gpufleet" else cloud_of_type(type_)
        assert cloud == module.split("_", 1)[0], (type_, reader.__module__)
    assert frozenset(READERS) == GPU_RESOURCE_TYPES


def test_a_type_has_one_reader() -> None:
    with pytest.raises(ValueError, match="two footprint readers for aws:ec2/instance:Instance"):
        reads("aws:ec2/instance:Instance")(lambda r: None)


def test_resolve_template_fills_in_machines_and_market() -> None:
    group = read_gpu_footprint(
        "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager", {"targetSize": 2}
    )
    template = read_gpu_footprint(
        "gcp:compute/instanceTemplate:InstanceTemplate",
        {"machineType": "g2-standard-24", "scheduling": {"provisioningModel": "SPOT"}},
    )
    assert group is not None and template is not None
    resolved = resolve_template(group, [template])
    assert resolved.max_gpus == 4 and resolved.market == "spot"
    missing = resolve_template(group, [])
    assert missing.undetermined == ("its template is not in this stack",)


def test_a_group_rolling_out_two_versions_may_launch_either_templates_machines() -> None:
    group = read_gpu_footprint(
        "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager", {"targetSize": 10}
    )
    big, small = (
        read_gpu_footprint(
            "gcp:compute/instanceTemplate:InstanceTemplate",
            {"machineType": machine, "scheduling": {"provisioningModel": "SPOT"}},
        )
        for machine in ("a3-highgpu-8g", "g2-standard-4")
    )
    assert group is not None and big is not None and small is not None
    both = resolve_template(group, [big, small])
    assert [m.instance_type for m in both.machines] == ["a3-highgpu-8g", "g2-standard-4"]
    assert both.max_gpus == 80 and both.market == "spot"

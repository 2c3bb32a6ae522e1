"""The footprint readers' registry: every reader registered under its resource types once,
one module per cloud; templates resolved into the capacity that launches from them."""

from __future__ import annotations

import pytest

from gpufleet.clouds import cloud_of_type
from gpufleet.policies.footprints import GPU_RESOURCE_TYPES, read_gpu_footprint, resolve_template
from gpufleet.policies.footprints.reading import READERS, reads


def test_each_cloud_module_registers_only_its_own_types() -> None:
    for type_, reader in READERS.items():
        module = reader.__module__.rsplit(".", 1)[1]
        assert cloud_of_type(type_) == module, (type_, reader.__module__)
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
    resolved = resolve_template(group, template)
    assert resolved.total_gpus == 4 and resolved.market == "spot"
    missing = resolve_template(group, None)
    assert missing.undetermined == ("its template is not in this stack",)

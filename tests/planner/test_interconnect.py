"""Cluster networking per size, against EC2's own description of its instance types (moto ships
a copy of DescribeInstanceTypes' answers): the EFA interfaces a launch template asks for are
the ones the size takes."""

from __future__ import annotations

import gzip
import json
from functools import cache
from importlib import resources
from typing import Any

import pytest

from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.interconnect import (
    AWS_EFA_INTERFACES,
    AWS_EFA_ONLY_LAYOUT,
    supports_multi_node,
)


@cache
def ec2_instance_types() -> dict[str, Any]:
    data = resources.files("moto.ec2") / "resources" / "instance_types.json.gz"
    with data.open("rb") as handle:
        return json.loads(gzip.decompress(handle.read()))


def _max_efa(described: dict[str, Any]) -> int | None:
    network = described.get("NetworkInfo", {})
    if not network.get("EfaSupported"):
        return None
    return network.get("EfaInfo", {}).get("MaximumEfaInterfaces")


AWS_SIZES = sorted(load_catalog().instance_types("aws"))
# Sizes EC2 no longer describes (p3, dl1, g4ad) keep the user guide's figures.
DESCRIBED = [size for size in AWS_SIZES if size in ec2_instance_types()]


@pytest.mark.parametrize("size", DESCRIBED)
def test_efa_interfaces_are_what_ec2_says_the_size_takes(size: str) -> None:
    described = ec2_instance_types()[size]
    assert AWS_EFA_INTERFACES.get(size) == _max_efa(described), (
        f"{size}: planner/interconnect.py's AWS_EFA_INTERFACES says "
        f"{AWS_EFA_INTERFACES.get(size)}, EC2 says {_max_efa(described)} "
        "(NetworkInfo.EfaInfo.MaximumEfaInterfaces)"
    )


def test_the_data_describes_most_catalog_sizes() -> None:
    # The comparison above means something only while the data knows the catalog's sizes.
    assert len(DESCRIBED) >= 0.8 * len(AWS_SIZES), f"{len(DESCRIBED)} of {len(AWS_SIZES)} described"


def test_efa_only_layouts_are_sizes_with_efa() -> None:
    assert set(AWS_EFA_INTERFACES) >= AWS_EFA_ONLY_LAYOUT
    assert all(supports_multi_node("aws", size) for size in AWS_EFA_ONLY_LAYOUT)

"""GPUs asked for by name anywhere in a resource's settings: node requirements on a GPU machine
family or category (Karpenter's labels), with AWS's GPU-looking names from one home."""

from __future__ import annotations

import pytest

from gpufleet.capacity.footprints.named_anywhere import _asks_by_pair

FAMILY = "karpenter.k8s.aws/instance-family"
CATEGORY = "karpenter.k8s.aws/instance-category"


@pytest.mark.parametrize(
    ("values", "asks"),
    [
        (["p5"], True),
        (["g6e"], True),
        (["P4D"], True),
        # Families named with a dash, as the newest GPU families are.
        (["p6-b200"], True),
        (["p6e-gb200"], True),
        (["m7i", "c5"], False),
        (["m7i", "g7e"], True),
        ([" trn2 "], True),
    ],
)
def test_a_family_requirement_on_a_gpu_family_asks_for_gpus(values: list[str], asks: bool) -> None:
    assert _asks_by_pair(FAMILY, {"operator": "In", "values": values}) is asks


def test_a_category_requirement_on_an_accelerated_category_asks_for_gpus() -> None:
    assert _asks_by_pair(CATEGORY, {"operator": "In", "values": ["c", "G"]})
    assert not _asks_by_pair(CATEGORY, {"operator": "In", "values": ["m", "c", "r"]})
    # Leaving GPU families out asks for none.
    assert not _asks_by_pair(FAMILY, {"operator": "NotIn", "values": ["p5"]})

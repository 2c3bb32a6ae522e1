"""Which resource types take tags: the table generated from the SDKs matches them."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import ROOT
from tests.policies.inputs import ASG, GCP_TEMPLATE


def test_taggable_table_matches_the_installed_sdks() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "generate_taggable_types.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_taggable_table_knows_tags_labels_and_tag_lists() -> None:
    from gpufleet.capacity.taggable import tag_property

    def prop(type_: str) -> tuple[str, str]:
        found = tag_property(type_)
        assert found is not None, type_
        return found.name, found.shape

    assert prop("aws:ec2/instance:Instance") == ("tags", "map")
    assert prop(ASG) == ("tags", "list")
    assert prop(GCP_TEMPLATE) == ("labels", "map")
    assert prop("azure-native:compute:VirtualMachineScaleSet") == ("tags", "map")
    assert tag_property("gcp:compute/reservation:Reservation") is None  # takes no labels
    assert tag_property("aws:s3/bucketPolicy:BucketPolicy") is None

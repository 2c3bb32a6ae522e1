"""CompactCluster under the offline engine: every node in one zone under one placement policy,
reservations or Spot, validation."""

from __future__ import annotations

import re
from typing import Any

import pytest

from gpufleet.components.gcp.compact_cluster import CompactCluster, CompactClusterArgs
from gpufleet.components.scaling import Scaling, WeeklyRun
from tests.components.component_checks import (
    TAGS,
    assert_component_basics,
)
from tests.components.gcp.site import IMAGE, KMS_KEY, NET
from tests.components.pulumi_mocks import Capture, capture, resolve


def compact(**overrides: Any) -> tuple[Capture, CompactCluster]:
    values: dict[str, Any] = {
        "tags": TAGS,
        "machine_type": "a3-highgpu-8g",
        "nodes": 3,
        "zone": "us-east4-a",
        "source_image": IMAGE,
        **NET,
    }
    args = CompactClusterArgs(**(values | overrides))
    return capture(lambda: CompactCluster("pretrain", args))


def test_compact_cluster_places_every_node_with_the_policy_in_one_zone() -> None:
    cap, cluster = compact()
    assert_component_basics(cap, "gpufleet:gcp:CompactCluster", "pretrain", tagged=3)
    policy = cap.one("gcp:compute/resourcePolicy:ResourcePolicy")
    assert policy.inputs["groupPlacementPolicy"] == {"collocation": "COLLOCATED", "vmCount": 3}
    assert policy.inputs["region"] == "us-east4"
    nodes = cap.of_type("gcp:compute/instance:Instance")
    assert sorted(n.name for n in nodes) == [
        "pretrain-node-0",
        "pretrain-node-1",
        "pretrain-node-2",
    ]
    for node in nodes:
        assert node.inputs["zone"] == "us-east4-a"
        assert node.inputs["resourcePolicies"] == policy.outputs["selfLink"]
        assert node.inputs["scheduling"]["onHostMaintenance"] == "TERMINATE"
        assert node.inputs["scheduling"]["provisioningModel"] == "STANDARD"
        assert "accessConfigs" not in node.inputs["networkInterfaces"][0]
    assert len(resolve(cluster.instance_self_links)) == 3


def test_compact_cluster_boot_disks_take_a_customer_managed_key() -> None:
    """CKV_GCP_38 reads ``boot_disk.kms_key_self_link``: absent by default (Google-managed keys,
    the documented exception), the key when given."""
    cap, _ = compact()
    assert all(
        "kmsKeySelfLink" not in n.inputs["bootDisk"]
        for n in cap.of_type("gcp:compute/instance:Instance")
    )
    cap, _ = compact(disk_kms_key=KMS_KEY)
    nodes = cap.of_type("gcp:compute/instance:Instance")
    assert len(nodes) == 3
    for node in nodes:
        assert node.inputs["bootDisk"]["kmsKeySelfLink"] == KMS_KEY
        assert node.inputs["bootDisk"]["initializeParams"]["image"] == IMAGE


def test_compact_cluster_consumes_a_reservation_or_runs_on_spot() -> None:
    cap, _ = compact(reservation="chat-serving-reservation-abc")
    affinity = cap.of_type("gcp:compute/instance:Instance")[0].inputs["reservationAffinity"]
    assert affinity == {
        "type": "SPECIFIC_RESERVATION",
        "specificReservation": {
            "key": "compute.googleapis.com/reservation-name",
            "values": ["chat-serving-reservation-abc"],
        },
    }
    spot, _ = compact(provisioning="SPOT")
    scheduling = spot.of_type("gcp:compute/instance:Instance")[0].inputs["scheduling"]
    assert scheduling["provisioningModel"] == "SPOT" and scheduling["automaticRestart"] is False


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"machine_type": "n1-standard-8"}, "cannot use compact placement"),
        ({"machine_type": "e2-standard-8"}, "cannot use compact placement"),
        ({"nodes": 1}, "greater than or equal to 2"),
        ({"zone": "us-east4"}, "not a GCP zone"),
        ({"provisioning": "SPOT", "reservation": "r"}, "Spot VMs cannot consume a reservation"),
        ({"disk_kms_key": f"{KMS_KEY}/cryptoKeyVersions/1"}, "is not a Cloud KMS key"),
    ],
)
def test_compact_cluster_validation(overrides: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {
        "tags": TAGS,
        "machine_type": "a2-highgpu-8g",
        "nodes": 2,
        "zone": "us-central1-a",
        "source_image": IMAGE,
        **NET,
    }
    with pytest.raises(ValueError, match=re.escape(message)):
        CompactClusterArgs(**(values | overrides))


def test_nodes_on_request_are_created_stopped_and_left_to_the_run() -> None:
    cap, _ = compact(scaling=Scaling(mode="on_request", expected_hours=300))
    nodes = cap.of_type("gcp:compute/instance:Instance")
    assert len(nodes) == 3
    for node in nodes:
        assert node.inputs["desiredStatus"] == "TERMINATED"
        # A run's start and stop time belong to the run (gpufleet scale), not to pulumi up.
        assert node.ignore_changes == ["desiredStatus", "scheduling.maxRunDuration"]
        assert node.inputs["labels"]["expected-minutes"] == "18000"
    fixed, _ = compact()
    running = fixed.of_type("gcp:compute/instance:Instance")
    assert all("desiredStatus" not in n.inputs for n in running)


def test_a_compact_cluster_cannot_follow_a_schedule() -> None:
    runs = [WeeklyRun(start_minute=0, minutes=60)]
    with pytest.raises(ValueError, match="is not for a compact cluster"):
        compact(scaling=Scaling(mode="schedule", runs=runs))

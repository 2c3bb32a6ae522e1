"""ReservationPool under the offline engine: a specific, protected reservation; validation."""

from __future__ import annotations

import pytest

from gpufleet.components.gcp.reservation_pool import ReservationPool, ReservationPoolArgs
from gpufleet.planner.catalog import load_catalog
from tests.components.component_checks import (
    TAGS,
    assert_component_basics,
)
from tests.components.pulumi_mocks import capture, resolve


def test_reservation_pool_is_specific_and_protected() -> None:
    args = ReservationPoolArgs(
        tags=TAGS,
        machine_type="n1-standard-8",
        gpu="T4",
        gpu_count=1,
        zone="us-central1-a",
        count=4,
        share_with_projects=["acme-ml-dev"],
    )
    cap, pool = capture(lambda: ReservationPool("serving", args))
    assert_component_basics(cap, "gpufleet:gcp:ReservationPool", "serving", tagged=0, enums=2)
    reservation = cap.one("gcp:compute/reservation:Reservation")
    assert reservation.protect is True
    assert reservation.inputs["specificReservationRequired"] is True
    assert reservation.inputs["zone"] == "us-central1-a"
    assert reservation.inputs["specificReservation"] == {
        "count": 4,
        "instanceProperties": {
            "machineType": "n1-standard-8",
            "guestAccelerators": [{"acceleratorType": "nvidia-tesla-t4", "acceleratorCount": 1}],
        },
    }
    assert reservation.inputs["shareSettings"] == {
        "shareType": "SPECIFIC_PROJECTS",
        "projectMaps": [{"id": "acme-ml-dev", "projectId": "acme-ml-dev"}],
    }
    name = resolve(pool.reservation_name)
    assert resolve(pool.reservation_affinity["specific_reservation"]["values"][0]) == name


def test_reservation_pool_validation() -> None:
    with pytest.raises(ValueError, match="carries 8 H100 already"):
        ReservationPoolArgs(
            tags=TAGS,
            machine_type="a3-highgpu-8g",
            gpu="H100",
            gpu_count=8,
            zone="us-east4-a",
            count=1,
        )
    with pytest.raises(ValueError, match="not GCP project ids: Acme_Dev"):
        ReservationPoolArgs(
            tags=TAGS,
            machine_type="g2-standard-4",
            zone="us-east4-a",
            count=1,
            share_with_projects=["Acme_Dev"],
        )
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        ReservationPoolArgs(tags=TAGS, machine_type="g2-standard-4", zone="us-east4-a", count=0)


@pytest.mark.parametrize(
    ("machine_type", "gpu", "gpu_count", "term", "plan", "kind", "accelerator", "gpus"),
    [
        (
            "g2-standard-4",
            None,
            None,
            "3y",
            "THIRTY_SIX_MONTH",
            "GRAPHICS_OPTIMIZED",
            "nvidia-l4",
            1,
        ),
        (
            "a2-highgpu-2g",
            None,
            None,
            "1y",
            "TWELVE_MONTH",
            "ACCELERATOR_OPTIMIZED",
            "nvidia-tesla-a100",
            2,
        ),
        (
            "a3-megagpu-8g",
            None,
            None,
            "3y",
            "THIRTY_SIX_MONTH",
            "ACCELERATOR_OPTIMIZED_A3_MEGA",
            None,
            8,
        ),
        ("n1-standard-8", "T4", 2, "1y", "TWELVE_MONTH", "GENERAL_PURPOSE", "nvidia-tesla-t4", 2),
    ],
)
def test_a_purchased_commitment_buys_exactly_the_reservation_and_is_kept(
    machine_type: str,
    gpu: str | None,
    gpu_count: int | None,
    term: str,
    plan: str,
    kind: str,
    accelerator: str | None,
    gpus: int,
) -> None:
    args = ReservationPoolArgs(
        tags=TAGS,
        machine_type=machine_type,
        gpu=gpu,
        gpu_count=gpu_count,
        zone="us-east4-a",
        count=3,
        commitment=term,  # type: ignore[arg-type]
        purchase_commitment=True,
    )
    cap, pool = capture(lambda: ReservationPool("serving", args))
    assert_component_basics(cap, "gpufleet:gcp:ReservationPool", "serving", tagged=0, enums=6)
    reservation = cap.one("gcp:compute/reservation:Reservation")
    commitment = cap.one("gcp:compute/regionCommitment:RegionCommitment")
    # A contract nothing may end: protected, kept in the account if removed, never renewed.
    assert commitment.protect is True and commitment.retain_on_delete is True
    assert commitment.inputs["autoRenew"] is False
    assert commitment.inputs["region"] == "us-east4"
    assert commitment.inputs["plan"] == plan
    assert commitment.inputs["type"] == kind
    assert commitment.inputs["category"] == "MACHINE"
    assert commitment.inputs["existingReservations"] == reservation.id
    shape = load_catalog().shape("gcp", machine_type)
    assert shape is not None
    amounts = {r["type"]: r for r in commitment.inputs["resources"]}
    assert int(amounts["VCPU"]["amount"]) == shape.vcpus * 3
    memory_mb = int(amounts["MEMORY"]["amount"])
    assert memory_mb % 256 == 0 and 0 <= memory_mb - shape.memory_gib * 1024 * 3 < 256
    assert int(amounts["ACCELERATOR"]["amount"]) == gpus * 3
    if accelerator is not None:
        assert amounts["ACCELERATOR"]["acceleratorType"] == accelerator
    assert "workload=" in commitment.inputs["description"]
    assert resolve(pool.commitment_name) == commitment.outputs.get("name", commitment.name)


def test_no_commitment_is_bought_unless_asked() -> None:
    args = ReservationPoolArgs(
        tags=TAGS, machine_type="g2-standard-4", zone="us-east4-a", count=1, commitment="3y"
    )
    cap, pool = capture(lambda: ReservationPool("serving", args))
    assert not cap.of_type("gcp:compute/regionCommitment:RegionCommitment")
    assert pool.commitment_name is None


def test_a_commitment_to_buy_needs_its_term() -> None:
    with pytest.raises(ValueError, match="purchase_commitment needs the commitment's term"):
        ReservationPoolArgs(
            tags=TAGS,
            machine_type="g2-standard-4",
            zone="us-east4-a",
            count=1,
            purchase_commitment=True,
        )

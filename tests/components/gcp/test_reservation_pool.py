"""ReservationPool under the offline engine: a specific, protected reservation; validation."""

from __future__ import annotations

import pytest

from gpufleet.components.gcp.reservation_pool import ReservationPool, ReservationPoolArgs
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

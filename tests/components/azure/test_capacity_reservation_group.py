"""CapacityReservationGroup under the offline engine: per-zone and regional reservations,
validation."""

from __future__ import annotations

import re
from typing import Any

import pytest

from gpufleet.components.azure.capacity_reservation_group import (
    CapacityReservationGroup,
    CapacityReservationGroupArgs,
)
from tests.components.component_checks import (
    TAGS,
    assert_component_basics,
)
from tests.components.pulumi_mocks import capture, resolve


def test_capacity_reservation_group_per_zone() -> None:
    args = CapacityReservationGroupArgs(
        tags=TAGS,
        resource_group_name="rg-ml",
        location="eastus",
        vm_size="Standard_NC24ads_A100_v4",
        capacity_per_zone={"2": 1, "1": 2},
    )
    cap, component = capture(lambda: CapacityReservationGroup("serving", args))
    assert_component_basics(
        cap, "gpufleet:azure:CapacityReservationGroup", "serving", tagged=3, enums=2
    )
    group = cap.one("azure-native:compute:CapacityReservationGroup")
    assert group.protect is True and group.inputs["zones"] == ["1", "2"]
    reservations = cap.of_type("azure-native:compute:CapacityReservation")
    assert [(r.name, r.inputs["zones"], r.inputs["sku"]) for r in reservations] == [
        ("serving-zone-1", ["1"], {"name": "Standard_NC24ads_A100_v4", "capacity": 2}),
        ("serving-zone-2", ["2"], {"name": "Standard_NC24ads_A100_v4", "capacity": 1}),
    ]
    assert all(r.protect for r in reservations)
    assert all(
        r.inputs["capacityReservationGroupName"] == group.outputs["name"] for r in reservations
    )
    assert resolve(component.group_id) == group.outputs["id"]


def test_capacity_reservation_group_regional() -> None:
    args = CapacityReservationGroupArgs(
        tags=TAGS,
        resource_group_name="rg-ml",
        location="eastus",
        vm_size="Standard_NC4as_T4_v3",
        regional_capacity=3,
    )
    cap, _ = capture(lambda: CapacityReservationGroup("batch", args))
    (reservation,) = cap.of_type("azure-native:compute:CapacityReservation")
    assert reservation.name == "batch-regional" and "zones" not in reservation.inputs
    assert "zones" not in cap.one("azure-native:compute:CapacityReservationGroup").inputs


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({}, "give exactly one of capacity_per_zone and regional_capacity"),
        ({"capacity_per_zone": {"1": 1}, "regional_capacity": 1}, "give exactly one"),
        ({"capacity_per_zone": {}}, "needs at least one zone"),
        ({"capacity_per_zone": {"1": 0}}, "counts must be 1-1000"),
        ({"capacity_per_zone": {"5": 1}}, "Input should be '1', '2' or '3'"),
        ({"regional_capacity": 1, "vm_size": "Standard_E4s_v5"}, "not an Azure GPU size"),
    ],
)
def test_capacity_reservation_group_validation(overrides: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {
        "tags": TAGS,
        "resource_group_name": "rg",
        "location": "eastus",
        "vm_size": "Standard_NC4as_T4_v3",
    }
    with pytest.raises(ValueError, match=re.escape(message)):
        CapacityReservationGroupArgs(**(values | overrides))

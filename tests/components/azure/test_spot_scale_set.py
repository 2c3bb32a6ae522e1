"""SpotScaleSet under the offline engine: Spot VMs, placement groups, price cap, eviction,
validation."""

from __future__ import annotations

import re
from typing import Any

import pytest

from gpufleet.components.azure.spot_scale_set import SpotScaleSet, SpotScaleSetArgs
from gpufleet.components.scaling import Scaling, WeeklyRun
from tests.components.azure.site import SSH_KEY, SUBNET_ID
from tests.components.component_checks import (
    TAGS,
    assert_component_basics,
)
from tests.components.pulumi_mocks import Capture, capture, resolve


def scale_set(**overrides: Any) -> tuple[Capture, SpotScaleSet]:
    values: dict[str, Any] = {
        "tags": TAGS,
        "resource_group_name": "rg-ml",
        "location": "eastus",
        "vm_size": "Standard_NC24ads_A100_v4",
        "instances": 2,
        "subnet_id": SUBNET_ID,
        "ssh_public_key": SSH_KEY,
    }
    args = SpotScaleSetArgs(**(values | overrides))
    return capture(lambda: SpotScaleSet("workers", args))


def test_spot_scale_set() -> None:
    cap, component = scale_set()
    assert_component_basics(cap, "gpufleet:azure:SpotScaleSet", "workers", tagged=1)
    vmss = cap.one("azure-native:compute:VirtualMachineScaleSet").inputs
    profile = vmss["virtualMachineProfile"]
    assert vmss["sku"] == {"name": "Standard_NC24ads_A100_v4", "capacity": 2, "tier": "Standard"}
    assert profile["priority"] == "Spot" and profile["evictionPolicy"] == "Delete"
    assert profile["billingProfile"] == {"maxPrice": -1}
    assert profile["scheduledEventsProfile"]["terminateNotificationProfile"]["enable"] is True
    # CKV_AZURE_97: temp disks and caches encrypted on the host too.
    assert profile["securityProfile"] == {"encryptionAtHost": True}
    linux = profile["osProfile"]["linuxConfiguration"]
    assert linux["disablePasswordAuthentication"] is True
    assert linux["ssh"]["publicKeys"][0]["keyData"] == SSH_KEY
    (nic,) = profile["networkProfile"]["networkInterfaceConfigurations"]
    (ip,) = nic["ipConfigurations"]
    assert "publicIPAddressConfiguration" not in ip and "publicIpAddressConfiguration" not in ip
    assert ip["subnet"] == {"id": SUBNET_ID}
    assert "proximityPlacementGroup" not in vmss
    assert resolve(component.scale_set_name)
    assert component.proximity_placement_group_id is None


def test_spot_scale_set_without_encryption_at_host_where_it_cannot_be() -> None:
    cap, _ = scale_set(encryption_at_host=False)
    profile = cap.one("azure-native:compute:VirtualMachineScaleSet").inputs["virtualMachineProfile"]
    assert profile["securityProfile"] == {"encryptionAtHost": False}


def test_spot_scale_set_with_placement_group_price_cap_and_deallocate() -> None:
    cap, component = scale_set(
        proximity_placement_group=True, max_price=1.25, eviction_policy="Deallocate", zones=["1"]
    )
    assert_component_basics(cap, "gpufleet:azure:SpotScaleSet", "workers", tagged=2)
    group = cap.one("azure-native:compute:ProximityPlacementGroup")
    vmss = cap.one("azure-native:compute:VirtualMachineScaleSet").inputs
    assert vmss["proximityPlacementGroup"] == {"id": group.outputs["id"]}
    assert vmss["zones"] == ["1"] and group.inputs["zones"] == ["1"]
    assert vmss["virtualMachineProfile"]["billingProfile"] == {"maxPrice": 1.25}
    assert vmss["virtualMachineProfile"]["evictionPolicy"] == "Deallocate"
    assert resolve(component.proximity_placement_group_id) == group.outputs["id"]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"max_price": 0}, "is -1 (up to the on-demand price) or a price above 0"),
        ({"max_price": -2}, "is -1 (up to the on-demand price) or a price above 0"),
        ({"eviction_policy": "Stop"}, "Input should be 'Deallocate' or 'Delete'"),
        ({"vm_size": "Standard_D2s_v3"}, "not an Azure GPU size"),
        ({"ssh_public_key": "not-a-key"}, "not an OpenSSH public key"),
        ({"zones": ["4"]}, "Input should be '1', '2' or '3'"),
        ({"image": {"publisher": "x"}}, "needs publisher, offer, sku and version"),
    ],
)
def test_spot_scale_set_validation(overrides: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {
        "tags": TAGS,
        "resource_group_name": "rg",
        "location": "eastus",
        "vm_size": "Standard_NC24ads_A100_v4",
        "instances": 1,
        "subnet_id": SUBNET_ID,
        "ssh_public_key": SSH_KEY,
    }
    with pytest.raises(ValueError, match=re.escape(message)):
        SpotScaleSetArgs(**(values | overrides))


AUTOSCALE = "azure-native:monitor:AutoscaleSetting"
VMSS = "azure-native:compute:VirtualMachineScaleSet"


def test_a_fixed_set_has_no_autoscale_setting() -> None:
    cap, _ = scale_set()
    assert not cap.of_type(AUTOSCALE)
    assert cap.one(VMSS).inputs["sku"]["capacity"] == 2


def test_a_set_on_request_starts_empty_with_its_autoscale_disabled() -> None:
    cap, _ = scale_set(scaling=Scaling(mode="on_request", expected_hours=90))
    vmss = cap.one(VMSS)
    assert vmss.inputs["sku"]["capacity"] == 0 and vmss.ignore_changes == ["sku.capacity"]
    assert vmss.inputs["tags"]["expected-minutes"] == "5400"
    setting = cap.one(AUTOSCALE).inputs
    assert setting["enabled"] is False
    # A run enables it with a profile that ends it (gpufleet scale): pulumi up leaves both.
    assert cap.one(AUTOSCALE).ignore_changes == ["enabled", "profiles"]
    (profile,) = setting["profiles"]
    assert profile["capacity"] == {"minimum": "0", "maximum": "2", "default": "0"}
    (target,) = cap.one(AUTOSCALE).property_dependencies["targetResourceUri"]
    assert target == vmss.urn


def test_a_scheduled_set_has_a_recurring_profile_per_start_and_end_time() -> None:
    # Weekdays 08:00-20:00 in New York: one profile starts them all, one ends them all.
    runs = [WeeklyRun(start_minute=day * 1440 + 8 * 60, minutes=12 * 60) for day in range(5)]
    cap, _ = scale_set(scaling=Scaling(mode="schedule", time_zone="America/New_York", runs=runs))
    profiles = cap.one(AUTOSCALE).inputs["profiles"]
    assert cap.one(AUTOSCALE).ignore_changes == []
    by_name = {p["name"].split("-")[0]: p for p in profiles}
    assert len(profiles) == 2
    start, end = by_name["run"], by_name["idle"]
    weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
    assert start["recurrence"]["frequency"] == "Week"
    assert start["recurrence"]["schedule"] == {
        "timeZone": "Eastern Standard Time",
        "days": weekdays,
        "hours": [8],
        "minutes": [0],
    }
    assert start["capacity"] == {"minimum": "2", "maximum": "2", "default": "2"}
    assert end["recurrence"]["schedule"]["hours"] == [20]
    assert end["capacity"] == {"minimum": "0", "maximum": "0", "default": "0"}


GROUP_ID = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-ml/providers/"
    "Microsoft.Compute/capacityReservationGroups/chat-serving"
)


def test_scale_set_in_a_capacity_reservation_group() -> None:
    cap, _ = scale_set(priority="Regular", capacity_reservation_group_id=GROUP_ID)
    vmss = cap.one("azure-native:compute:VirtualMachineScaleSet").inputs
    assert vmss["platformFaultDomainCount"] == 1
    profile = vmss["virtualMachineProfile"]
    assert profile["capacityReservation"] == {"capacityReservationGroup": {"id": GROUP_ID}}
    assert profile["priority"] == "Regular"
    assert "billingProfile" not in profile and "evictionPolicy" not in profile


def test_spot_vms_cannot_run_in_a_capacity_reservation() -> None:
    with pytest.raises(ValueError, match="needs priority Regular"):
        scale_set(capacity_reservation_group_id=GROUP_ID)
    with pytest.raises(ValueError, match="cannot go with a proximity placement group"):
        scale_set(
            priority="Regular",
            capacity_reservation_group_id=GROUP_ID,
            proximity_placement_group=True,
        )


BASE_ID = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-ml/providers/"
    "Microsoft.Compute/virtualMachineScaleSets/chat-serving-vms"
)


def test_a_burst_on_load_follows_its_bases_cpu() -> None:
    cap, _ = scale_set(
        priority="Spot",
        scaling=Scaling(mode="on_load", expected_hours=120),
        base_scale_set_id=BASE_ID,
    )
    setting = cap.one(AUTOSCALE)
    assert setting.inputs["enabled"] is True and setting.ignore_changes == []
    (profile,) = setting.inputs["profiles"]
    assert profile["capacity"] == {"minimum": "0", "maximum": "2", "default": "0"}
    busy, idle = profile["rules"]
    for rule, operator, threshold, direction in (
        (busy, "GreaterThan", 70.0, "Increase"),
        (idle, "LessThan", 30.0, "Decrease"),
    ):
        trigger = rule["metricTrigger"]
        assert trigger["metricResourceUri"] == BASE_ID  # the base's metric, not its own
        assert (trigger["metricName"], trigger["operator"], trigger["threshold"]) == (
            "Percentage CPU",
            operator,
            threshold,
        )
        assert rule["scaleAction"]["direction"] == direction
        assert (rule["scaleAction"]["type"], rule["scaleAction"]["value"]) == ("ChangeCount", "1")


def test_on_load_and_a_base_set_go_together() -> None:
    with pytest.raises(ValueError, match="on_load and base_scale_set_id go together"):
        scale_set(scaling=Scaling(mode="on_load", expected_hours=120))

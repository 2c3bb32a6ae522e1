"""A whole stack's GPU capacity: templates found through property dependencies (known even in
a preview), capacity left out of it when its template is not in the stack, templates not
counted as capacity."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.capacity.stack_capacity import stack_capacity, stack_footprints
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.policies.testing import UNKNOWN


def resource(type_: str, name: str, props: dict[str, Any], **deps: list[str]) -> StackResource:
    return StackResource(type_, name, f"urn::{name}", props, {}, None, deps)


def test_a_group_takes_its_machines_from_the_template_it_depends_on() -> None:
    template = resource(
        "gcp:compute/instanceTemplate:InstanceTemplate",
        "tpl",
        {"machineType": "a3-highgpu-8g", "scheduling": {"provisioningModel": "SPOT"}},
    )
    group = resource(
        "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
        "group",
        {"targetSize": 3, "versions": [{"instanceTemplate": UNKNOWN}]},
        versions=["urn::tpl"],
    )
    (item,) = stack_capacity([template, group])
    assert item.resource is group and item.template is template
    assert (item.footprint.max_gpus, item.footprint.market) == (24, "spot")
    assert [i.resource.name for i in stack_footprints([template, group])] == ["tpl", "group"]


def test_a_group_without_its_template_is_undetermined() -> None:
    group = resource(
        "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
        "group",
        {"targetSize": 3},
        versions=["urn::elsewhere"],
    )
    (item,) = stack_capacity([group])
    assert item.footprint.undetermined == ("its template is not in this stack",)


# Capacity in a reservation, on each cloud: linked in a preview (ids unknown) only through
# property dependencies, through a template (AWS, GCP) or a reservation group (Azure).
def aws_in_reservation(reservation_deps: list[str]) -> list[StackResource]:
    reservation = resource(
        "aws:ec2/capacityReservation:CapacityReservation",
        "odcr",
        {"instanceType": "p5.48xlarge", "instanceCount": 2, "availabilityZone": "us-east-1a"},
    )
    template = resource(
        "aws:ec2/launchTemplate:LaunchTemplate",
        "lt",
        {
            "instanceType": "p5.48xlarge",
            "capacityReservationSpecification": {
                "capacityReservationTarget": {"capacityReservationId": UNKNOWN}
            },
        },
        capacityReservationSpecification=reservation_deps,
    )
    group = resource(
        "aws:autoscaling/group:Group",
        "asg",
        {"minSize": 2, "maxSize": 2, "desiredCapacity": 2, "launchTemplate": {"id": UNKNOWN}},
        launchTemplate=["urn::lt"],
    )
    return [reservation, template, group]


def gcp_in_reservation(reservation_deps: list[str]) -> list[StackResource]:
    reservation = resource(
        "gcp:compute/reservation:Reservation",
        "res",
        {
            "zone": "us-east4-a",
            "specificReservation": {
                "count": 2,
                "instanceProperties": {"machineType": "g2-standard-4"},
            },
        },
    )
    template = resource(
        "gcp:compute/instanceTemplate:InstanceTemplate",
        "tpl",
        {
            "machineType": "g2-standard-4",
            "reservationAffinity": {
                "type": "SPECIFIC_RESERVATION",
                "specificReservation": {"key": "k", "values": [UNKNOWN]},
            },
        },
        reservationAffinity=reservation_deps,
    )
    group = resource(
        "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
        "mig",
        {"targetSize": 2, "versions": [{"instanceTemplate": UNKNOWN}]},
        versions=["urn::tpl"],
    )
    return [reservation, template, group]


def azure_in_reservation(group_deps: list[str]) -> list[StackResource]:
    crg = resource("azure-native:compute:CapacityReservationGroup", "crg", {"location": "eastus"})
    reservation = resource(
        "azure-native:compute:CapacityReservation",
        "cr",
        {
            "location": "eastus",
            "capacityReservationGroupName": UNKNOWN,
            "sku": {"name": "Standard_NC24ads_A100_v4", "capacity": 2},
        },
        capacityReservationGroupName=["urn::crg"],
    )
    vmss = resource(
        "azure-native:compute:VirtualMachineScaleSet",
        "vmss",
        {
            "location": "eastus",
            "sku": {"name": "Standard_NC24ads_A100_v4", "capacity": 2},
            "virtualMachineProfile": {
                "priority": "Regular",
                "capacityReservation": {"capacityReservationGroup": {"id": UNKNOWN}},
            },
        },
        virtualMachineProfile=group_deps,
    )
    return [crg, reservation, vmss]


@pytest.mark.parametrize(
    ("build", "linked"),
    [
        (aws_in_reservation, "urn::odcr"),
        (gcp_in_reservation, "urn::res"),
        (azure_in_reservation, "urn::crg"),
    ],
)
def test_capacity_in_the_stacks_reservation_is_paid_by_it(build: Any, linked: str) -> None:
    found = {i.resource.name: i.footprint for i in stack_capacity(build([linked]))}
    reserved = [f for f in found.values() if f.market == "reserved"]
    running = [f for f in found.values() if f.market != "reserved"]
    assert len(reserved) == 1 and len(running) == 1
    assert running[0].market == "in_reservation" and not running[0].notes


@pytest.mark.parametrize("build", [aws_in_reservation, gcp_in_reservation, azure_in_reservation])
def test_capacity_in_a_reservation_elsewhere_pays_its_own_way(build: Any) -> None:
    found = [i.footprint for i in stack_capacity(build(["urn::somewhere-else"]))]
    running = next(f for f in found if f.market != "reserved")
    assert running.market == "on_demand"
    assert "not in this stack" in running.notes[-1]

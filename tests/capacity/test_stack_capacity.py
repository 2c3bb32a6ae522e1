"""A whole stack's GPU capacity: templates found through property dependencies (known even in
a preview), capacity left out of it when its template is not in the stack, templates not
counted as capacity."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.capacity.footprints.model import GpuFootprint
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


def _running(resources: list[StackResource]) -> list[GpuFootprint]:
    return [i.footprint for i in stack_capacity(resources) if i.footprint.market != "reserved"]


def test_a_reservation_covers_as_many_instances_as_it_holds_once() -> None:
    """Two instances reserved: a group of two fits; a second group of two on the same
    reservation pays its own way (the reservation is priced too); one group of three runs
    two in it and pays for the third, never the reserved two twice."""
    reservation, template, group = gcp_in_reservation(["urn::res"])
    second = resource(group.type, "mig-2", group.props, versions=["urn::tpl"])
    first_found, second_found = _running([reservation, template, group, second])
    assert first_found.market == "in_reservation"
    assert second_found.market == "on_demand" and "no room left" in second_found.notes[-1]
    assert second_found.fixed_share is None
    bigger = resource(group.type, "mig", {**group.props, "targetSize": 3}, versions=["urn::tpl"])
    (found,) = _running([reservation, template, bigger])
    assert found.market == "on_demand" and "holds 2 of its 3" in found.notes[-1]
    assert found.fixed_share is not None and found.fixed_share.market == "in_reservation"
    assert found.fixed_share.max_units == 2 and found.max_units == 3
    # Its GPUs beyond the reservation (counted there): the third machine's.
    assert found.max_gpus is not None
    assert found.max_gpus_beyond_reservations == found.max_gpus / 3


def test_spot_capacity_is_never_in_a_reservation() -> None:
    reservation, template, group = gcp_in_reservation(["urn::res"])
    spot = resource(
        template.type,
        "tpl",
        {**template.props, "scheduling": {"provisioningModel": "SPOT"}},
        reservationAffinity=["urn::res"],
    )
    (found,) = _running([reservation, spot, group])
    assert found.market == "spot" and "cannot run in a reservation" in found.notes[-1]


def test_a_known_reservation_name_outranks_a_dependency() -> None:
    """A scale set whose profile depends on the stack's group but names another group (its id
    known) is in that other group, which the stack does not hold."""
    crg, reservation, vmss = azure_in_reservation(["urn::crg"])
    reservation = resource(
        reservation.type,
        reservation.name,
        {**reservation.props, "capacityReservationGroupName": "serving"},
        capacityReservationGroupName=["urn::crg"],
    )
    other = ".../capacityReservationGroups/elsewhere"
    named = resource(
        vmss.type,
        "vmss",
        {
            **vmss.props,
            "virtualMachineProfile": {
                "capacityReservation": {"capacityReservationGroup": {"id": other}}
            },
        },
        virtualMachineProfile=["urn::crg"],
    )
    (found,) = _running([crg, reservation, named])
    assert found.market == "on_demand" and "elsewhere" in found.notes[-1]
    # The same, naming the stack's group in any case: in it.
    ours = resource(
        vmss.type,
        "vmss",
        {
            **vmss.props,
            "virtualMachineProfile": {
                "capacityReservation": {
                    "capacityReservationGroup": {"id": ".../capacityReservationGroups/SERVING"}
                }
            },
        },
    )
    (found,) = _running([crg, reservation, ours])
    assert found.market == "in_reservation"


def test_a_mixed_group_on_a_reserving_template_says_it_is_priced_on_its_own() -> None:
    reservation, template, _ = aws_in_reservation(["urn::odcr"])
    mixed = resource(
        "aws:autoscaling/group:Group",
        "asg",
        {
            "minSize": 2,
            "maxSize": 2,
            "mixedInstancesPolicy": {
                "instancesDistribution": {"onDemandBaseCapacity": 2},
                "launchTemplate": {"launchTemplateSpecification": {"launchTemplateId": UNKNOWN}},
            },
        },
        mixedInstancesPolicy=["urn::lt"],
    )
    (found,) = _running([reservation, template, mixed])
    assert found.market == "on_demand"
    assert "does not match" in found.notes[-1]


def test_capacity_in_a_reservation_whose_machine_a_preview_does_not_know_is_undetermined() -> None:
    """Neither free nor at its own rate until deployed: said, not guessed."""
    reservation, template, group = gcp_in_reservation(["urn::res"])
    unknown = resource(
        reservation.type,
        reservation.name,
        {
            **reservation.props,
            "specificReservation": {"count": 2, "instanceProperties": {"machineType": UNKNOWN}},
        },
    )
    (found,) = _running([unknown, template, group])
    assert found.undetermined[-1] == "its reservation's machine type is unknown during preview"
    assert found.unknown


def test_a_version_of_fixed_size_holds_its_own_machines() -> None:
    """The most GPUs a two-version group holds: its fixed version in that version's machines,
    the rest in the other's (not every VM in the larger machine)."""
    link = "https://www.googleapis.com/compute/v1/projects/p/global/instanceTemplates/"
    big = resource(
        "gcp:compute/instanceTemplate:InstanceTemplate",
        "big",
        {"machineType": "a3-highgpu-8g", "selfLinkUnique": f"{link}big?uniqueId=1"},
    )
    small = resource(
        "gcp:compute/instanceTemplate:InstanceTemplate",
        "small",
        {"machineType": "g2-standard-4", "selfLink": f"{link}small"},
    )
    group = resource(
        "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
        "group",
        {
            "targetSize": 6,
            "versions": [
                {"instanceTemplate": f"{link}small"},
                {"instanceTemplate": f"{link}BIG?uniqueId=1", "targetSize": {"fixed": 2.0}},
            ],
        },
        versions=["urn::small", "urn::big"],
    )
    (item,) = stack_capacity([big, small, group])
    share = item.footprint.fixed_share
    assert share is not None and share.max_units == 2
    assert [m.instance_type for m in share.machines] == ["a3-highgpu-8g"]
    assert [m.instance_type for m in item.footprint.machines] == ["g2-standard-4"]
    assert item.footprint.max_gpus == 2 * 8 + 4 * 1


@pytest.mark.parametrize(
    "second",
    [
        {"targetSize": {"percent": 50}},  # a share in percent: not read as a fixed size
        {"targetSize": {"fixed": 2.5}},
    ],
)
def test_other_version_shapes_are_options_of_the_whole_group(second: dict[str, Any]) -> None:
    template = resource(
        "gcp:compute/instanceTemplate:InstanceTemplate",
        "tpl",
        {"machineType": "a3-highgpu-8g", "selfLink": "l1"},
    )
    other = resource(
        "gcp:compute/instanceTemplate:InstanceTemplate",
        "other",
        {"machineType": "g2-standard-4", "selfLink": "l2"},
    )
    group = resource(
        "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
        "group",
        {
            "targetSize": 3,
            "versions": [{"instanceTemplate": "l1"}, {"instanceTemplate": "l2", **second}],
        },
        versions=["urn::tpl", "urn::other"],
    )
    (item,) = stack_capacity([template, other, group])
    assert item.footprint.fixed_share is None
    assert item.footprint.max_gpus == 3 * 8  # every VM may be the larger machine


def test_both_versions_in_one_reservation_take_from_it_once() -> None:
    """A reservation of 6 under a group of 6 whose fixed version of 1 and rest both consume
    it: all 6 are in it, none counted twice (the rest asks for 5, not 6)."""
    reservation = resource(
        "gcp:compute/reservation:Reservation",
        "res",
        {
            "name": "serving",
            "zone": "us-east4-a",
            "specificReservation": {
                "count": 6,
                "instanceProperties": {"machineType": "g2-standard-4"},
            },
        },
    )
    affinity = {
        "type": "SPECIFIC_RESERVATION",
        "specificReservation": {"key": "k", "values": ["serving"]},
    }
    base, rest = (
        resource(
            "gcp:compute/instanceTemplate:InstanceTemplate",
            name,
            {"machineType": "g2-standard-4", "selfLink": name, "reservationAffinity": affinity},
        )
        for name in ("base", "rest")
    )
    group = resource(
        "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
        "group",
        {
            "targetSize": 6,
            "versions": [
                {"instanceTemplate": "base", "targetSize": {"fixed": 1}},
                {"instanceTemplate": "rest"},
            ],
        },
        versions=["urn::base", "urn::rest"],
    )
    _, item = stack_capacity([reservation, base, rest, group])
    share = item.footprint.fixed_share
    assert share is not None and share.market == "in_reservation"
    assert item.footprint.market == "in_reservation" and item.footprint.notes == ()


def test_a_group_whose_template_in_the_stack_holds_no_gpus_is_no_gpu_capacity() -> None:
    """Its template is there and is a CPU machine: the group holds no GPUs (where a template
    missing from the stack leaves it undetermined)."""
    template = resource(
        "aws:ec2/launchTemplate:LaunchTemplate", "cpu-tpl", {"instanceType": "m7i.large"}
    )
    group = resource(
        "aws:autoscaling/group:Group",
        "web",
        {"maxSize": 50, "launchTemplate": {"id": UNKNOWN}},
        launchTemplate=["urn::cpu-tpl"],
    )
    assert stack_footprints([template, group]) == []
    (alone,) = stack_footprints([group])
    assert alone.footprint.undetermined == ("its template is not in this stack",)


def test_a_cluster_is_one_fleet_of_its_pools() -> None:
    """Each GPU pool is a part of its own; the CPU pool none."""
    cluster = resource(
        "gcp:container/cluster:Cluster",
        "gke",
        {
            "location": "us-central1-a",
            "nodePools": [
                {"name": "cpu", "nodeCount": 9, "nodeConfig": {"machineType": "e2-standard-4"}},
                {"name": "a", "nodeCount": 1, "nodeConfig": {"machineType": "a3-highgpu-8g"}},
                {"name": "b", "nodeCount": 2, "nodeConfig": {"machineType": "a2-highgpu-4g"}},
            ],
        },
    )
    items = stack_capacity([cluster])
    assert [(i.name, i.footprint.max_gpus) for i in items] == [("gke/a", 8), ("gke/b", 8)]

"""GPU footprints of GCP resources as users write them: accelerator-optimized and N1 machines,
templates (global and regional), instances, zonal and regional instance groups, reservations."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.capacity.footprints import read_gpu_footprint
from gpufleet.capacity.footprints.model import GpuFootprint
from gpufleet.policies.testing import UNKNOWN


def footprint(type_: str, props: dict[str, Any]) -> GpuFootprint:
    found = read_gpu_footprint(type_, props)
    assert found is not None, (type_, props)
    return found


@pytest.mark.parametrize(
    "type_",
    [
        "gcp:compute/instanceTemplate:InstanceTemplate",
        "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
    ],
)
def test_templates_carry_built_in_gpus_and_their_scheduling(type_: str) -> None:
    found = footprint(
        type_,
        {
            "region": "us-east4",
            "machineType": "a3-highgpu-8g",
            "scheduling": {"provisioningModel": "SPOT"},
        },
    )
    assert found.is_template
    assert [(m.gpu_name, m.gpus) for m in found.machines] == [("H100", 8)]
    assert (found.market, found.region) == ("spot", "us-east4")


def test_n1_instance_with_attached_gpus() -> None:
    found = footprint(
        "gcp:compute/instance:Instance",
        {
            "zone": "us-central1-a",
            "machineType": "n1-standard-32",
            "guestAccelerators": [{"type": "nvidia-tesla-v100", "count": 4}],
        },
    )
    assert [(m.gpu_name, m.gpus) for m in found.machines] == [("V100", 4)]
    assert (found.max_units, found.market, found.region) == (1.0, "on_demand", "us-central1")


def test_an_instance_in_a_reservation_is_paid_by_the_reservation() -> None:
    found = footprint(
        "gcp:compute/instance:Instance",
        {
            "machineType": "a2-highgpu-1g",
            "scheduling": {"preemptible": True},
            "reservationAffinity": {"type": "SPECIFIC_RESERVATION"},
        },
    )
    assert found.market == "in_reservation"


@pytest.mark.parametrize(
    ("type_", "where", "region"),
    [
        ("gcp:compute/instanceGroupManager:InstanceGroupManager", "zone", "us-central1"),
        (
            "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
            "region",
            "us-central1",
        ),
    ],
)
def test_instance_groups_take_their_machines_from_a_template(
    type_: str, where: str, region: str
) -> None:
    value = "us-central1-a" if where == "zone" else "us-central1"
    found = footprint(type_, {where: value, "targetSize": 4})
    assert found.machines == () and found.template_properties == ("versions", "instanceTemplate")
    assert (found.max_units, found.region) == (4.0, region)


def test_reservation_of_n1_machines_with_accelerators() -> None:
    found = footprint(
        "gcp:compute/reservation:Reservation",
        {
            "zone": "europe-west4-a",
            "specificReservation": {
                "count": 3,
                "instanceProperties": {
                    "machineType": "n1-standard-8",
                    "guestAccelerators": [
                        {"acceleratorType": "nvidia-tesla-t4", "acceleratorCount": 2}
                    ],
                },
            },
        },
    )
    assert [(m.gpu_name, m.gpus) for m in found.machines] == [("T4", 2)]
    assert (found.market, found.max_units, found.undetermined) == ("reserved", 3.0, ())


def test_unknown_accelerators_and_types_are_undetermined() -> None:
    unknown = footprint(
        "gcp:compute/instance:Instance",
        {"machineType": "n1-standard-8", "guestAccelerators": UNKNOWN},
    )
    assert unknown.undetermined == ("guestAccelerators are unknown during preview",)
    future = footprint("gcp:compute/instance:Instance", {"machineType": "a9-highgpu-8g"})
    assert future.undetermined == (
        "machineType a9-highgpu-8g is not in the GPU catalog (GPUs unknown)",
    )


def test_cpu_machines_hold_no_gpus() -> None:
    assert read_gpu_footprint("gcp:compute/instance:Instance", {"machineType": "e2-small"}) is None


@pytest.mark.parametrize(
    "machine_type",
    [
        "zones/us-central1-a/machineTypes/a2-highgpu-1g",
        "https://www.googleapis.com/compute/v1/projects/p/zones/us-central1-a/machineTypes/a2-highgpu-1g",
        "A2-HIGHGPU-1G",
        "  a2-highgpu-1g ",
    ],
)
def test_machine_types_as_urls_in_any_case_are_read(machine_type: str) -> None:
    found = footprint(
        "gcp:compute/instance:Instance", {"zone": "us-central1-a", "machineType": machine_type}
    )
    assert [(m.instance_type, m.gpu_name, m.gpus) for m in found.machines] == [
        ("a2-highgpu-1g", "A100", 1)
    ]
    assert found.undetermined == ()


@pytest.mark.parametrize(
    ("machine_type", "why"),
    [(123, "machineType 123 is not a machine type"), ("", "machineType '' is not a machine")],
)
def test_a_machine_type_that_is_not_a_name_is_undetermined(machine_type: Any, why: str) -> None:
    found = footprint("gcp:compute/instance:Instance", {"machineType": machine_type})
    assert any(why in u for u in found.undetermined), found.undetermined


def test_guest_accelerators_of_one_kind_add_up_and_zero_is_none() -> None:
    two = footprint(
        "gcp:compute/instance:Instance",
        {
            "machineType": "n1-standard-8",
            "guestAccelerators": [
                {"type": "nvidia-tesla-t4", "count": 1},
                {"type": "projects/p/zones/z/acceleratorTypes/NVIDIA-TESLA-T4", "count": 1},
            ],
        },
    )
    assert [(m.gpu_name, m.gpus) for m in two.machines] == [("T4", 2)]
    none = read_gpu_footprint(
        "gcp:compute/instance:Instance",
        {
            "machineType": "n1-standard-8",
            "guestAccelerators": [{"type": "nvidia-tesla-t4", "count": 0}],
        },
    )
    assert none is None


@pytest.mark.parametrize(
    ("accelerators", "why"),
    [
        (
            [{"type": "nvidia-tesla-t4", "count": -1}],
            "guestAccelerators[0].count -1 is not a number",
        ),
        ([{"type": "nvidia-tesla-t4", "count": True}], "guestAccelerators[0].count True is not"),
        ([{"type": "nvidia-tesla-t4"}], "guestAccelerators[0].count is not set"),
        ([{"type": "nvidia-mystery", "count": 1}], "'nvidia-mystery' is not a known GPU"),
        (
            [{"type": "nvidia-tesla-t4", "count": 1}, {"type": "nvidia-l4", "count": 1}],
            "guestAccelerators name several GPU kinds: T4, L4",
        ),
    ],
)
def test_guest_accelerators_that_cannot_be_read_say_why(
    accelerators: list[dict[str, Any]], why: str
) -> None:
    found = footprint(
        "gcp:compute/instance:Instance",
        {"machineType": "n1-standard-8", "guestAccelerators": accelerators},
    )
    assert any(why in u for u in found.undetermined), found.undetermined

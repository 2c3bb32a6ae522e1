"""GPU footprints of AWS resources as users write them: the machines, how many, in which market,
where, and what cannot be determined."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.capacity.footprints import read_gpu_footprint
from gpufleet.capacity.footprints.model import GpuFootprint
from gpufleet.policies.testing import UNKNOWN


def footprint(type_: str, props: dict[str, Any], **provider: Any) -> GpuFootprint:
    found = read_gpu_footprint(type_, props, provider)
    assert found is not None, (type_, props)
    return found


def machines(found: GpuFootprint) -> list[tuple[str, str, int]]:
    return [(m.instance_type, m.gpu_name, m.gpus) for m in found.machines]


ASG = "aws:autoscaling/group:Group"


def test_launch_template_is_a_template_with_its_market() -> None:
    found = footprint(
        "aws:ec2/launchTemplate:LaunchTemplate",
        {"instanceType": "g6.12xlarge", "instanceMarketOptions": {"marketType": "spot"}},
        region="us-west-2",
    )
    assert found.is_template and found.max_units is None
    assert machines(found) == [("g6.12xlarge", "L4", 4)]
    assert (found.market, found.region) == ("spot", "us-west-2")


def test_instance_on_demand_or_from_its_template() -> None:
    plain = footprint(
        "aws:ec2/instance:Instance",
        {"instanceType": "p5.48xlarge", "availabilityZone": "us-east-1b"},
    )
    assert (plain.max_units, plain.market, plain.region) == (1.0, "on_demand", "us-east-1")
    assert plain.max_gpus == 8
    templated = footprint("aws:ec2/instance:Instance", {"launchTemplate": {"id": "lt-1"}})
    assert templated.machines == () and templated.template_properties == ("launchTemplate",)
    assert templated.market is None  # the template decides


def test_autoscaling_group_mixes_on_demand_base_and_spot() -> None:
    found = footprint(
        "aws:autoscaling/group:Group",
        {
            "maxSize": 10,
            "mixedInstancesPolicy": {
                "instancesDistribution": {
                    "onDemandBaseCapacity": 2,
                    "onDemandPercentageAboveBaseCapacity": 25,
                },
                "launchTemplate": {
                    "overrides": [{"instanceType": "g5.xlarge"}, {"instanceType": "g5.12xlarge"}]
                },
            },
        },
    )
    assert machines(found) == [("g5.xlarge", "A10G", 1), ("g5.12xlarge", "A10G", 4)]
    assert (found.max_units, found.market, found.on_demand_units(10)) == (10.0, "mixed", 4.0)
    assert found.on_demand_units(2) == 2 and found.on_demand_units(6) == 3
    assert found.max_gpus == 40  # every instance counted as the largest override
    assert found.expected_units == 0  # no desired capacity, no min size: AWS's zero


def test_autoscaling_group_sizes_desired_then_min_and_max() -> None:
    group = {
        "mixedInstancesPolicy": {"launchTemplate": {"overrides": [{"instanceType": "p5.48xlarge"}]}}
    }
    desired = footprint(ASG, {**group, "minSize": 1, "desiredCapacity": 3, "maxSize": 8})
    assert (desired.expected_units, desired.max_units) == (3.0, 8.0)
    minimum = footprint(ASG, {**group, "minSize": 2, "maxSize": 8})
    assert (minimum.expected_units, minimum.max_units) == (2.0, 8.0)
    preview = footprint(ASG, {**group, "minSize": 2, "desiredCapacity": UNKNOWN, "maxSize": 8})
    assert preview.expected_units is None
    assert preview.undetermined == ("desiredCapacity is unknown during preview",)


def test_a_group_counted_in_gpus_launches_max_size_over_the_weight() -> None:
    """SpotFleet's shape: weighted capacity = GPUs per instance, sizes in GPUs."""
    found = footprint(
        ASG,
        {
            "desiredCapacityType": "units",
            "desiredCapacity": 16,
            "minSize": 0,
            "maxSize": 16,
            "mixedInstancesPolicy": {
                "instancesDistribution": {"onDemandPercentageAboveBaseCapacity": 0},
                "launchTemplate": {
                    "overrides": [{"instanceType": "p4d.24xlarge", "weightedCapacity": "8"}]
                },
            },
        },
    )
    assert found.options() == [(found.machines[0], 8.0)]
    assert found.max_gpus == 16  # two p4d.24xlarge, not sixteen
    assert (found.market, found.largest_option[1]) == ("spot", 2)
    uneven = footprint(
        ASG,
        {
            "maxSize": 12,
            "mixedInstancesPolicy": {
                "launchTemplate": {
                    "overrides": [
                        {"instanceType": "g6.xlarge", "weightedCapacity": "1"},
                        {"instanceType": "g6.48xlarge", "weightedCapacity": "8"},
                    ]
                }
            },
        },
    )
    # 12 GPUs of 8-GPU machines is two of them (16 GPUs): the last one overshoots.
    assert uneven.max_gpus == 16 and uneven.largest_option[0].instance_type == "g6.48xlarge"


def test_a_group_sized_in_vcpus_weighs_its_machines_by_their_vcpus() -> None:
    found = footprint(
        ASG,
        {
            "desiredCapacityType": "vcpu",
            "maxSize": 192,
            "mixedInstancesPolicy": {
                "launchTemplate": {"overrides": [{"instanceType": "p4d.24xlarge"}]}
            },
        },
    )
    assert found.capacity_unit == "vcpu" and found.max_gpus == 16  # 192 / 96 vCPUs = 2


def test_ec2_fleet_overrides_capacity_and_market() -> None:
    spot = footprint(
        "aws:ec2/fleet:Fleet",
        {
            "launchTemplateConfigs": [
                {
                    "launchTemplateSpecification": {"launchTemplateId": "lt-1"},
                    "overrides": [{"instanceType": "p4d.24xlarge"}],
                }
            ],
            "targetCapacitySpecification": {
                "totalTargetCapacity": 3,
                "defaultTargetCapacityType": "spot",
            },
        },
    )
    assert machines(spot) == [("p4d.24xlarge", "A100", 8)]
    assert (spot.kind, spot.max_units, spot.market, spot.max_gpus) == ("EC2 Fleet", 3, "spot", 24)
    mixed = footprint(
        "aws:ec2/fleet:Fleet",
        {
            "launchTemplateConfigs": [{"overrides": [{"instanceType": "g6.xlarge"}]}],
            "targetCapacitySpecification": {
                "totalTargetCapacity": 4,
                "onDemandTargetCapacity": 1,
                "defaultTargetCapacityType": "spot",
            },
        },
    )
    assert (mixed.market, mixed.on_demand_units(4)) == ("mixed", 1.0)
    # The rest of the target is the default capacity type: on-demand here, so all of it.
    rest_on_demand = footprint(
        "aws:ec2/fleet:Fleet",
        {
            "launchTemplateConfigs": [{"overrides": [{"instanceType": "g6.xlarge"}]}],
            "targetCapacitySpecification": {
                "totalTargetCapacity": 4,
                "onDemandTargetCapacity": 2,
                "defaultTargetCapacityType": "on-demand",
            },
        },
    )
    assert rest_on_demand.market == "on_demand"
    spot_target = footprint(
        "aws:ec2/fleet:Fleet",
        {
            "launchTemplateConfigs": [{"overrides": [{"instanceType": "g6.xlarge"}]}],
            "targetCapacitySpecification": {
                "totalTargetCapacity": 4,
                "spotTargetCapacity": 3,
                "defaultTargetCapacityType": "on-demand",
            },
        },
    )
    assert (spot_target.market, spot_target.on_demand_units(4)) == ("mixed", 1.0)
    weighted = footprint(
        "aws:ec2/fleet:Fleet",
        {
            "launchTemplateConfigs": [
                {"overrides": [{"instanceType": "p5.48xlarge", "weightedCapacity": 8}]}
            ],
            "targetCapacitySpecification": {
                "totalTargetCapacity": 32,
                "defaultTargetCapacityType": "spot",
            },
        },
    )
    assert weighted.max_gpus == 32
    from_template = footprint(
        "aws:ec2/fleet:Fleet",
        {"targetCapacitySpecification": {"totalTargetCapacity": 2}},
    )
    assert from_template.template_properties == ("launchTemplateConfigs",)
    assert from_template.market == "on_demand"


def test_spot_fleet_request_specifications_and_overrides() -> None:
    found = footprint(
        "aws:ec2/spotFleetRequest:SpotFleetRequest",
        {
            "launchSpecifications": [{"instanceType": "p4d.24xlarge", "ami": "ami-1"}],
            "launchTemplateConfigs": [{"overrides": [{"instanceType": "p5.48xlarge"}]}],
            "targetCapacity": 3,
        },
    )
    assert machines(found) == [("p4d.24xlarge", "A100", 8), ("p5.48xlarge", "H100", 8)]
    assert (found.kind, found.max_units, found.market) == ("Spot Fleet request", 3.0, "spot")
    mixed = footprint(
        "aws:ec2/spotFleetRequest:SpotFleetRequest",
        {
            "launchSpecifications": [{"instanceType": "g5.xlarge"}],
            "targetCapacity": 4,
            "onDemandTargetCapacity": 1,
        },
    )
    assert (mixed.market, mixed.on_demand_units(4)) == ("mixed", 1.0)
    weighted = footprint(
        "aws:ec2/spotFleetRequest:SpotFleetRequest",
        {
            "launchSpecifications": [
                {"instanceType": "g5.12xlarge", "weightedCapacity": 4},
                {"instanceType": "g5.48xlarge", "weightedCapacity": 8},
            ],
            "targetCapacity": 16,
        },
    )
    assert weighted.max_gpus == 16


def test_reservations_and_capacity_blocks_are_reserved() -> None:
    reservation = footprint(
        "aws:ec2/capacityReservation:CapacityReservation",
        {"instanceType": "p5.48xlarge", "instanceCount": 2, "availabilityZone": "us-east-2a"},
    )
    assert (reservation.market, reservation.max_gpus, reservation.region) == (
        "reserved",
        16,
        "us-east-2",
    )
    block = footprint(
        "aws:ec2/capacityBlockReservation:CapacityBlockReservation",
        {"capacityBlockOfferingId": "cb-1"},
    )
    assert block.undetermined == ("the Capacity Block's instance type comes from its offering",)


def test_training_job_runs_for_its_max_runtime_at_sagemaker_rates() -> None:
    job = footprint(
        "aws:sagemaker/trainingJob:TrainingJob",
        {
            "enableManagedSpotTraining": True,
            "resourceConfig": {"instanceType": "ml.g5.12xlarge", "instanceCount": 2},
            "stoppingCondition": {"maxRuntimeInSeconds": 36_000},
        },
    )
    assert machines(job) == [("ml.g5.12xlarge", "A10G", 4)]
    assert job.machines[0].sagemaker and job.market == "spot"
    assert (job.max_units, job.run_hours) == (2.0, 10.0)


@pytest.mark.parametrize(
    ("instance_type", "why"),
    [
        (UNKNOWN, "instanceType is unknown during preview"),
        ("p9.96xlarge", "instanceType p9.96xlarge is not in the GPU catalog (GPUs unknown)"),
    ],
)
def test_undetermined_machines_are_recorded(instance_type: str, why: str) -> None:
    found = footprint("aws:ec2/instance:Instance", {"instanceType": instance_type})
    assert found.undetermined == (why,) and found.machines == ()


@pytest.mark.parametrize(
    ("props", "why"),
    [
        ({"maxSize": -2}, "maxSize -2 is not a number from 0 to 1e+06"),
        ({"maxSize": "nan"}, "maxSize 'nan' is not a number from 0 to 1e+06"),
        ({"maxSize": 1e308}, "maxSize 1e+308 is not a number from 0 to 1e+06"),
        ({"maxSize": 10**5000}, "maxSize (a number too long to show) is not a number from 0"),
        ({"maxSize": 2.5}, "maxSize 2.5 is not a whole number"),
        ({"maxSize": True}, "maxSize True is not a number from 0 to 1e+06"),
        ({"maxSize": 2, "desiredCapacity": 10}, "its desired size 10 is above its max size 2"),
        ({"maxSize": 2, "minSize": 8}, "its min size 8 is above its max size 2"),
        ({"maxSize": 2, "type": ""}, "instanceType '' is not a machine type"),
        (
            {"maxSize": 2, "weight": "inf"},
            "weightedCapacity 'inf' is not a number from 1 to 999",
        ),
        ({"maxSize": 2, "weight": 0}, "weightedCapacity 0 is not a number from 1 to 999"),
        ({"maxSize": 2, "type": ["p5.48xlarge"]}, "instanceType ['p5.48xlarge'] is not a machine"),
        (
            {"maxSize": 2, "type": "[secret: not decrypted offline]"},
            "instanceType is a secret, not decrypted offline",
        ),
    ],
)
def test_sizes_that_are_not_whole_numbers_in_range_are_undetermined(
    props: dict[str, Any], why: str
) -> None:
    """Never a negative, NaN, infinite or fractional count priced as a number: undetermined,
    so unpriced, and not merely unknown (a budget holds it)."""
    override: dict[str, Any] = {"instanceType": props.pop("type", "p5.48xlarge")}
    if "weight" in props:
        override["weightedCapacity"] = props.pop("weight")
    found = footprint(
        ASG,
        {**props, "mixedInstancesPolicy": {"launchTemplate": {"overrides": [override]}}},
    )
    assert any(why in u for u in found.undetermined), found.undetermined
    assert not found.unknown


def test_an_unknown_value_beside_a_definite_problem_is_not_only_unknown() -> None:
    both = footprint(
        "aws:ec2/capacityReservation:CapacityReservation",
        {"instanceType": "p9.96xlarge", "instanceCount": UNKNOWN},
    )
    assert len(both.undetermined) == 2 and not both.unknown
    only = footprint(
        "aws:ec2/capacityReservation:CapacityReservation",
        {"instanceType": "p5.48xlarge", "instanceCount": UNKNOWN},
    )
    assert only.unknown


def test_cpu_machines_hold_no_gpus() -> None:
    assert read_gpu_footprint("aws:ec2/instance:Instance", {"instanceType": "m7i.large"}) is None
    assert read_gpu_footprint("aws:s3/bucket:Bucket", {"bucket": "b"}) is None


@pytest.mark.parametrize("written", [" p4d.24xlarge", "P4D.24XLARGE", "p4d.24xlarge\n"])
def test_instance_types_in_any_case_or_padded_are_read(written: str) -> None:
    found = footprint("aws:ec2/instance:Instance", {"instanceType": written})
    assert [(m.instance_type, m.gpus) for m in found.machines] == [("p4d.24xlarge", 8)]
    assert found.undetermined == ()

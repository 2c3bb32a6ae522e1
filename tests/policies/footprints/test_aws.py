"""GPU footprints of AWS resources as users write them: the machines, how many, in which market,
where, and what cannot be determined."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.policies.footprints import read_gpu_footprint
from gpufleet.policies.footprints.model import GpuFootprint
from gpufleet.policies.testing import UNKNOWN


def footprint(type_: str, props: dict[str, Any], **provider: Any) -> GpuFootprint:
    found = read_gpu_footprint(type_, props, provider)
    assert found is not None, (type_, props)
    return found


def machines(found: GpuFootprint) -> list[tuple[str, str, int]]:
    return [(m.instance_type, m.gpu_name, m.gpus) for m in found.machines]


def test_launch_template_is_a_template_with_its_market() -> None:
    found = footprint(
        "aws:ec2/launchTemplate:LaunchTemplate",
        {"instanceType": "g6.12xlarge", "instanceMarketOptions": {"marketType": "spot"}},
        region="us-west-2",
    )
    assert found.is_template and found.instances is None
    assert machines(found) == [("g6.12xlarge", "L4", 4)]
    assert (found.market, found.region) == ("spot", "us-west-2")


def test_instance_on_demand_or_from_its_template() -> None:
    plain = footprint(
        "aws:ec2/instance:Instance",
        {"instanceType": "p5.48xlarge", "availabilityZone": "us-east-1b"},
    )
    assert (plain.instances, plain.market, plain.region) == (1.0, "on_demand", "us-east-1")
    assert plain.total_gpus == 8
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
    assert (found.instances, found.market, found.on_demand_instances) == (10.0, "mixed", 4.0)
    assert found.total_gpus == 40  # every instance counted as the largest override


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
    assert (spot.kind, spot.instances, spot.market, spot.total_gpus) == ("EC2 Fleet", 3, "spot", 24)
    mixed = footprint(
        "aws:ec2/fleet:Fleet",
        {
            "launchTemplateConfigs": [{"overrides": [{"instanceType": "g6.xlarge"}]}],
            "targetCapacitySpecification": {
                "totalTargetCapacity": 4,
                "onDemandTargetCapacity": 1,
            },
        },
    )
    assert (mixed.market, mixed.on_demand_instances) == ("mixed", 1.0)
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
    assert (found.kind, found.instances, found.market) == ("Spot Fleet request", 3.0, "spot")
    mixed = footprint(
        "aws:ec2/spotFleetRequest:SpotFleetRequest",
        {
            "launchSpecifications": [{"instanceType": "g5.xlarge"}],
            "targetCapacity": 4,
            "onDemandTargetCapacity": 1,
        },
    )
    assert (mixed.market, mixed.on_demand_instances) == ("mixed", 1.0)


def test_reservations_and_capacity_blocks_are_reserved() -> None:
    reservation = footprint(
        "aws:ec2/capacityReservation:CapacityReservation",
        {"instanceType": "p5.48xlarge", "instanceCount": 2, "availabilityZone": "us-east-2a"},
    )
    assert (reservation.market, reservation.total_gpus, reservation.region) == (
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
    assert (job.instances, job.hours_per_month) == (2.0, 10.0)


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


def test_cpu_machines_hold_no_gpus() -> None:
    assert read_gpu_footprint("aws:ec2/instance:Instance", {"instanceType": "m7i.large"}) is None
    assert read_gpu_footprint("aws:s3/bucket:Bucket", {"bucket": "b"}) is None

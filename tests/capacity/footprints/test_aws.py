"""GPU footprints of AWS resources as users write them: the machines, how many, in which market,
where, and what cannot be determined."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.capacity.cost_engine import price_stack
from gpufleet.capacity.footprints import read_gpu_footprint, read_gpu_footprints, read_scaler
from gpufleet.capacity.footprints.model import GpuFootprint
from gpufleet.capacity.stack_capacity import stack_capacity
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.engine.mock_outputs import realistic_outputs
from gpufleet.planner.rates import shipped_rate_card
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


# --- Auto Scaling group warm pools ------------------------------------------------------------


def warm_group(**pool: Any) -> dict[str, Any]:
    return {
        "minSize": 0,
        "desiredCapacity": 2,
        "maxSize": 8,
        "launchTemplate": {"id": "lt-1"},
        "warmPool": pool,
    }


def test_a_running_warm_pool_adds_its_prepared_instances_to_the_group() -> None:
    # By default the pool prepares up to the group's max size: 6 beside 2 in service, and
    # at least its own min beside a full group.
    found = footprint(ASG, warm_group(poolState="Running", minSize=1))
    assert (found.expected_units, found.max_units) == (8.0, 9.0)
    assert any("warm pool runs" in note for note in found.notes)
    prepared = footprint(ASG, warm_group(poolState="Running", maxGroupPreparedCapacity=5))
    assert (prepared.expected_units, prepared.max_units) == (5.0, 8.0)
    default = footprint(ASG, warm_group(poolState="Running", maxGroupPreparedCapacity=-1))
    assert (default.expected_units, default.max_units) == (8.0, 8.0)


@pytest.mark.parametrize("state", [None, "Stopped", "Hibernated", "hibernated"])
def test_a_stopped_or_hibernated_warm_pool_bills_no_gpus(state: str | None) -> None:
    found = footprint(ASG, warm_group(**({"poolState": state} if state else {})))
    assert (found.expected_units, found.max_units, found.undetermined) == (2.0, 8.0, ())


def test_a_warm_pool_state_not_known_or_not_valid_is_undetermined() -> None:
    preview = footprint(ASG, warm_group(poolState=UNKNOWN))
    assert preview.undetermined == ("warmPool.poolState is unknown during preview",)
    assert preview.unknown
    wrong = footprint(ASG, warm_group(poolState="Warm"))
    assert wrong.undetermined == (
        "warmPool.poolState 'Warm' is not Stopped, Running or Hibernated",
    )
    bad = footprint(ASG, warm_group(poolState="Running", minSize=-3))
    assert bad.undetermined == ("warmPool.minSize -3 is not a number from 0 to 1e+06",)
    mixed = footprint(
        ASG,
        {
            **warm_group(poolState="Running"),
            "mixedInstancesPolicy": {
                "launchTemplate": {"overrides": [{"instanceType": "g5.xlarge"}]}
            },
        },
    )
    assert any("mixed instances policy" in u for u in mixed.undetermined)


# --- Application Auto Scaling -----------------------------------------------------------------


def stack_resource(
    type_: str, name: str, props: dict[str, Any], **deps: list[str]
) -> StackResource:
    return StackResource(type_, name, f"urn::{name}", props, {}, None, deps)


ENDPOINT_CONFIG = "aws:sagemaker/endpointConfiguration:EndpointConfiguration"
ENDPOINT = "aws:sagemaker/endpoint:Endpoint"
TARGET = "aws:appautoscaling/target:Target"
ACTION = "aws:appautoscaling/scheduledAction:ScheduledAction"


def endpoint_stack(*scalers: StackResource, literal: bool = False) -> list[StackResource]:
    config = stack_resource(
        ENDPOINT_CONFIG,
        "cfg",
        {
            "name": "cfg",
            "productionVariants": [
                {"variantName": "gpu", "instanceType": "ml.g5.12xlarge", "initialInstanceCount": 1},
                {"variantName": "cpu", "instanceType": "ml.m5.xlarge", "initialInstanceCount": 2},
                {"variantName": "l4", "instanceType": "ml.g6.xlarge", "initialInstanceCount": 1},
            ],
        },
    )
    deps = {} if literal else {"endpointConfigName": ["urn::cfg"]}
    endpoint = stack_resource(ENDPOINT, "ep", {"name": "ep", "endpointConfigName": "cfg"}, **deps)
    return [config, endpoint, *scalers]


def variant_target(variant: str = "gpu", literal: bool = False, **props: Any) -> StackResource:
    return stack_resource(
        TARGET,
        "target",
        {
            "resourceId": f"endpoint/ep/variant/{variant}",
            "scalableDimension": "sagemaker:variant:DesiredInstanceCount",
            "serviceNamespace": "sagemaker",
            "minCapacity": 1,
            "maxCapacity": 8,
            **props,
        },
        **({} if literal else {"resourceId": ["urn::ep"]}),
    )


def capacity_of(resources: list[StackResource]) -> dict[str, GpuFootprint]:
    return {item.name: item.footprint for item in stack_capacity(resources)}


@pytest.mark.parametrize("literal", [False, True])
def test_a_scalable_target_sizes_its_endpoint_variant(literal: bool) -> None:
    """Through the endpoint to the variant of the configuration it names: by property
    dependencies, or by the names a literal resource id gives."""
    found = capacity_of(endpoint_stack(variant_target(literal=literal), literal=literal))
    gpu, other = found["cfg/gpu"], found["cfg/l4"]
    assert (gpu.expected_units, gpu.max_units, gpu.scales_itself) == (1.0, 8.0, True)
    assert gpu.max_gpus == 32 and not gpu.undetermined
    assert (other.max_units, other.scales_itself) == (1.0, False)  # another variant: its own
    assert "target" not in found


def test_a_scheduled_action_raises_the_max_of_the_target_it_schedules() -> None:
    action = stack_resource(
        ACTION,
        "action",
        {
            "resourceId": "endpoint/ep/variant/gpu",
            "scalableDimension": "sagemaker:variant:DesiredInstanceCount",
            "schedule": "cron(0 8 * * ? *)",
            "scalableTargetAction": {"minCapacity": 4, "maxCapacity": 20},
        },
        resourceId=["urn::target"],  # written as target.resource_id
    )
    gpu = capacity_of(endpoint_stack(variant_target(), action))["cfg/gpu"]
    assert (gpu.expected_units, gpu.max_units) == (1.0, 20.0)
    assert any("its schedule is not read" in note for note in gpu.notes)


def test_a_scalable_target_of_a_cpu_variant_leaves_the_gpu_variants_alone() -> None:
    found = capacity_of(endpoint_stack(variant_target("cpu")))
    assert (found["cfg/gpu"].max_units, found["cfg/l4"].max_units) == (1.0, 1.0)


def test_a_scalable_target_sizes_a_spot_fleet() -> None:
    fleet = stack_resource(
        "aws:ec2/spotFleetRequest:SpotFleetRequest",
        "sfr",
        {"targetCapacity": 2, "launchSpecifications": [{"instanceType": "g5.12xlarge"}]},
    )
    target = stack_resource(
        TARGET,
        "target",
        {
            "resourceId": UNKNOWN,  # the fleet's id, in a preview
            "scalableDimension": "ec2:spot-fleet-request:TargetCapacity",
            "minCapacity": 0,
            "maxCapacity": 10,
        },
        resourceId=["urn::sfr"],
    )
    sfr = capacity_of([fleet, target])["sfr"]
    assert (sfr.expected_units, sfr.max_units, sfr.max_gpus) == (0.0, 10.0, 40)
    assert not sfr.undetermined


def test_a_dimension_gpufleet_does_not_read_makes_what_it_sizes_undetermined() -> None:
    appstream = stack_resource(
        "aws:appstream/fleet:Fleet",
        "stream",
        {"instanceType": "stream.graphics.g4dn.xlarge", "computeCapacity": {"desiredInstances": 1}},
    )
    target = stack_resource(
        TARGET,
        "target",
        {
            "resourceId": "fleet/stream",
            "scalableDimension": "appstream:fleet:DesiredCapacity",
            "minCapacity": 1,
            "maxCapacity": 50,
        },
        resourceId=["urn::stream"],
    )
    stream = capacity_of([appstream, target])["stream"]
    assert any(
        "appstream:fleet:DesiredCapacity, which gpufleet does not read" in u
        for u in stream.undetermined
    )


def test_a_target_it_cannot_follow_to_capacity_is_undetermined_itself() -> None:
    """An endpoint whose configuration is not in the stack, or a target of a type nothing
    reads: the scaler moves GPU capacity gpufleet cannot see, so it blocks."""
    endpoint = stack_resource(ENDPOINT, "ep", {"name": "ep", "endpointConfigName": "elsewhere"})
    found = capacity_of([endpoint, variant_target()])
    assert "whose GPU capacity gpufleet cannot find" in found["target"].undetermined[0]
    assert found["target"].max_gpus is None and not found["target"].unknown
    native = stack_resource("aws-native:sagemaker:InferenceComponent", "ic", {"name": "ic"})
    custom = stack_resource(
        TARGET,
        "custom",
        {
            "resourceId": "https://example.com/scalable/ic",
            "scalableDimension": "custom-resource:ResourceType:Property",
            "minCapacity": 0,
            "maxCapacity": 9,
        },
        resourceId=["urn::ic"],
    )
    assert (
        "ic (aws-native:sagemaker:InferenceComponent)"
        in (capacity_of([native, custom])["custom"].undetermined[0])
    )
    # A literal id naming nothing in the stack sizes capacity outside it: not this stack's.
    assert capacity_of([variant_target(literal=True)]) == {}


def test_a_scalable_target_of_a_service_without_gpus_is_no_scaler() -> None:
    for dimension in (
        "ecs:service:DesiredCount",
        "dynamodb:table:ReadCapacityUnits",
        "sagemaker:variant:DesiredProvisionedConcurrency",
    ):
        assert read_scaler(TARGET, {"scalableDimension": dimension, "maxCapacity": 9}) is None


@pytest.mark.parametrize(
    ("props", "why"),
    [
        ({"resourceId": "endpoint/ep"}, "resourceId 'endpoint/ep' is not endpoint/<endpoint"),
        ({"minCapacity": 9}, "its min capacity 9 is above its max capacity 8"),
        ({"maxCapacity": "lots"}, "maxCapacity 'lots' is not a number"),
        ({"scalableDimension": 7}, "scalableDimension 7 is not a dimension"),
    ],
)
def test_a_scalable_target_it_cannot_read_leaves_its_capacity_undetermined(
    props: dict[str, Any], why: str
) -> None:
    gpu = capacity_of(endpoint_stack(variant_target(**props)))["cfg/gpu"]
    assert any(why in u for u in gpu.undetermined), gpu.undetermined
    assert not gpu.unknown


def test_a_variant_unknown_during_preview_sizes_every_variant_as_unknown() -> None:
    found = capacity_of(endpoint_stack(variant_target(resourceId=UNKNOWN)))
    for part in ("cfg/gpu", "cfg/l4"):
        assert found[part].max_units == 8.0 and found[part].unknown, found[part]


# --- EMR --------------------------------------------------------------------------------------

CLUSTER = "aws:emr/cluster:Cluster"
GROUP = "aws:emr/instanceGroup:InstanceGroup"


def test_an_emr_cluster_reads_its_master_and_core_nodes_as_parts() -> None:
    (core,) = read_gpu_footprints(
        CLUSTER,
        {
            "masterInstanceGroup": {"instanceType": "m5.xlarge"},
            "coreInstanceGroup": {"instanceType": "P3.8XLARGE", "instanceCount": 4},
        },
        {"region": "us-west-2"},
    )
    assert (core.part, core.kind, core.max_gpus, core.market) == (
        "core",
        "EMR core instance group",
        16,
        "on_demand",
    )
    assert core.region == "us-west-2" and any("EC2 rates" in n for n in core.notes)
    master, core_default = read_gpu_footprints(
        CLUSTER,
        {
            "masterInstanceGroup": {"instanceType": "g5.xlarge", "bidPrice": "0.5"},
            "coreInstanceGroup": {"instanceType": "g5.xlarge"},
        },
    )
    assert (master.part, master.market, master.max_units) == ("master", "spot", 1.0)
    assert core_default.max_units == 1.0  # EMR's default core count
    assert read_gpu_footprints(CLUSTER, {"coreInstanceGroup": {"instanceType": "m5.xlarge"}}) == ()


def test_an_emr_instance_fleet_counts_weighted_on_demand_and_spot_units() -> None:
    (core,) = read_gpu_footprints(
        CLUSTER,
        {
            "coreInstanceFleet": {
                "targetOnDemandCapacity": 2,
                "targetSpotCapacity": 6,
                "instanceTypeConfigs": [
                    {"instanceType": "p4d.24xlarge", "weightedCapacity": 2},
                    {"instanceType": "g5.12xlarge"},
                ],
            }
        },
    )
    assert (core.max_units, core.weights, core.market) == (8.0, (2.0, 1.0), "mixed")
    assert core.on_demand_units(8) == 2.0
    assert core.max_gpus == 32  # 8 units of the largest: four p4d.24xlarge
    fleet = footprint(
        "aws:emr/instanceFleet:InstanceFleet",
        {"instanceTypeConfigs": [{"instanceType": "g6.xlarge"}], "targetSpotCapacity": 5},
    )
    assert (fleet.kind, fleet.market, fleet.max_gpus) == ("EMR instance fleet", "spot", 5)


def test_an_emr_instance_group_scales_within_its_automatic_scaling_policy() -> None:
    policy = '{"Constraints": {"MinCapacity": 1, "MaxCapacity": 10}, "Rules": []}'
    group = footprint(GROUP, {"instanceType": "g5.xlarge", "autoscalingPolicy": policy})
    assert (group.expected_units, group.max_units, group.scales_itself) == (1.0, 10.0, True)
    plain = footprint(GROUP, {"instanceType": "g5.xlarge", "instanceCount": 3})
    assert (plain.expected_units, plain.max_units) == (3.0, 3.0)
    assert read_gpu_footprint(GROUP, {"instanceType": "g5.xlarge"}).max_units == 0.0  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("policy", "why"),
    [
        ("{not json", "is not a JSON policy"),
        ('{"Rules": []}', "has no Constraints"),
        ('{"Constraints": {"MinCapacity": 1}}', "sets no MinCapacity and MaxCapacity"),
        ('{"Constraints": {"MinCapacity": 5, "MaxCapacity": 2}}', "MinCapacity 5 is above"),
        ("[" * 100_000 + "]" * 100_000, "is not a JSON policy"),
        (UNKNOWN, "autoscalingPolicy is unknown during preview"),
    ],
)
def test_an_emr_scaling_policy_it_cannot_read_is_undetermined(policy: str, why: str) -> None:
    group = footprint(GROUP, {"instanceType": "g5.xlarge", "autoscalingPolicy": policy})
    assert any(why in u for u in group.undetermined), group.undetermined


def emr_stack(*scalers: StackResource, unit: str = "Instances") -> list[StackResource]:
    cluster = stack_resource(
        CLUSTER,
        "emr",
        {
            "id": "j-1",
            "masterInstanceGroup": {"instanceType": "m5.xlarge"},
            "coreInstanceGroup": {"instanceType": "p3.8xlarge", "instanceCount": 2},
        },
    )
    task = stack_resource(
        GROUP, "task", {"clusterId": "j-1", "instanceType": "g5.12xlarge"}, clusterId=["urn::emr"]
    )
    return [cluster, task, *scalers]


def managed(unit: str, least: int, most: int, **deps: list[str]) -> StackResource:
    return stack_resource(
        "aws:emr/managedScalingPolicy:ManagedScalingPolicy",
        "scaling",
        {
            "clusterId": "j-1",
            "computeLimits": [
                {"unitType": unit, "minimumCapacityUnits": least, "maximumCapacityUnits": most}
            ],
        },
        **deps,
    )


@pytest.mark.parametrize("deps", [{"clusterId": ["urn::emr"]}, {}])
def test_emr_managed_scaling_sizes_core_nodes_and_raises_task_groups(
    deps: dict[str, list[str]],
) -> None:
    found = capacity_of(emr_stack(managed("Instances", 2, 20, **deps)))
    core, task = found["emr/core"], found["task"]
    assert (core.expected_units, core.max_units, core.max_gpus) == (2.0, 20.0, 80)
    assert (task.expected_units, task.max_units, task.max_gpus) == (0.0, 20.0, 80)


def test_emr_managed_scaling_in_vcpus_counts_the_machines_in_vcpus() -> None:
    core = capacity_of(emr_stack(managed("VCPU", 64, 320, clusterId=["urn::emr"])))["emr/core"]
    # p3.8xlarge: 32 vCPUs, 4 GPUs.
    assert (core.capacity_unit, core.max_units, core.max_gpus) == ("vcpu", 320.0, 40)


def test_emr_managed_scaling_it_cannot_read_is_undetermined() -> None:
    core = capacity_of(emr_stack(managed("Cores", 2, 20, clusterId=["urn::emr"])))["emr/core"]
    assert any("unitType 'Cores' is not" in u for u in core.undetermined)


def test_an_application_auto_scaling_target_sizes_an_emr_task_group() -> None:
    target = stack_resource(
        TARGET,
        "target",
        {
            "resourceId": "instancegroup/j-1/ig-2",
            "scalableDimension": "elasticmapreduce:instancegroup:InstanceCount",
            "minCapacity": 1,
            "maxCapacity": 6,
        },
        resourceId=["urn::emr", "urn::task"],  # both ids in the resource id
    )
    found = capacity_of(emr_stack(target))
    assert (found["task"].max_units, found["emr/core"].max_units) == (6.0, 2.0)


# --- SageMaker hyperparameter tuning ----------------------------------------------------------

TUNING = "aws:sagemaker/hyperParameterTuningJob:HyperParameterTuningJob"


def tuning(limits: dict[str, Any], **definition: Any) -> dict[str, Any]:
    return {
        "config": {"strategy": "Bayesian", "resourceLimits": limits},
        "trainingJobDefinition": {
            "resourceConfig": {"instanceType": "ml.p4d.24xlarge", "instanceCount": 2},
            "stoppingCondition": {"maxRuntimeInSeconds": 3600},
            **definition,
        },
    }


def test_a_tuning_job_holds_its_parallel_jobs_for_the_rounds_its_jobs_need() -> None:
    job = footprint(
        TUNING,
        tuning({"maxParallelTrainingJobs": 4, "maxNumberOfTrainingJobs": 10}),
    )
    assert (job.kind, job.max_units, job.max_gpus, job.market) == (
        "SageMaker tuning job",
        8.0,
        64,
        "on_demand",
    )
    assert job.run_hours == 3.0  # three rounds of one-hour jobs
    capped = footprint(
        TUNING,
        tuning(
            {
                "maxParallelTrainingJobs": 4,
                "maxNumberOfTrainingJobs": 10,
                "maxRuntimeInSeconds": 5400,
            },
            enableManagedSpotTraining=True,
        ),
    )
    assert (capped.run_hours, capped.market) == (1.5, "spot")


def test_a_tuning_job_chooses_among_instance_configs() -> None:
    job = footprint(
        TUNING,
        {
            "config": {
                "resourceLimits": {"maxParallelTrainingJobs": 2, "maxRuntimeInSeconds": 7200}
            },
            "trainingJobDefinitions": [
                {
                    "hyperParameterTuningResourceConfig": {
                        "allocationStrategy": "Prioritized",
                        "instanceConfigs": [
                            {"instanceType": "ml.g5.12xlarge", "instanceCount": 1},
                            {"instanceType": "ml.g5.48xlarge", "instanceCount": 3},
                        ],
                    }
                }
            ],
        },
    )
    assert [m.instance_type for m in job.machines] == ["ml.g5.12xlarge", "ml.g5.48xlarge"]
    assert (job.max_units, job.max_gpus, job.run_hours) == (6.0, 48, 2.0)


@pytest.mark.parametrize(
    ("limits", "why"),
    [
        ({"maxNumberOfTrainingJobs": 10}, "maxParallelTrainingJobs is not set"),
        ({"maxParallelTrainingJobs": 2}, "neither resourceLimits.maxNumberOfTrainingJobs"),
        ({"maxParallelTrainingJobs": 0}, "maxParallelTrainingJobs 0 is not a number from 1"),
        ({"maxParallelTrainingJobs": UNKNOWN, "maxRuntimeInSeconds": 60}, "unknown during"),
    ],
)
def test_a_tuning_job_it_cannot_size_is_undetermined(limits: dict[str, Any], why: str) -> None:
    job = footprint(TUNING, tuning(limits))
    assert any(why in u for u in job.undetermined), job.undetermined


# --- Elastic Beanstalk ------------------------------------------------------------------------

BEANSTALK = "aws:elasticbeanstalk/environment:Environment"
BEANSTALK_TEMPLATE = "aws:elasticbeanstalk/configurationTemplate:ConfigurationTemplate"


def settings(*entries: tuple[str, str, Any]) -> list[dict[str, Any]]:
    return [{"namespace": ns, "name": name, "value": value} for ns, name, value in entries]


def test_a_beanstalk_environment_runs_its_instance_types_up_to_its_max_size() -> None:
    env = footprint(
        BEANSTALK,
        {
            "settings": settings(
                ("aws:ec2:instances", "InstanceTypes", "g5.xlarge, G5.2XLARGE"),
                ("aws:autoscaling:asg", "MaxSize", "6"),
            )
        },
    )
    assert [m.instance_type for m in env.machines] == ["g5.xlarge", "g5.2xlarge"]
    assert (env.expected_units, env.max_units, env.market) == (1.0, 6.0, "on_demand")
    defaults = footprint(
        BEANSTALK,
        {
            "settings": settings(
                ("aws:autoscaling:launchconfiguration", "InstanceType", "p3.2xlarge")
            )
        },
    )
    assert (defaults.expected_units, defaults.max_units) == (1.0, 4.0)  # Beanstalk's 1 and 4
    single = footprint(
        BEANSTALK,
        {
            "settings": settings(
                ("aws:ec2:instances", "InstanceTypes", "g6.xlarge"),
                ("aws:elasticbeanstalk:environment", "EnvironmentType", "SingleInstance"),
                ("aws:autoscaling:asg", "MaxSize", "9"),
            )
        },
    )
    assert (single.expected_units, single.max_units) == (1.0, 1.0)
    assert read_gpu_footprint(BEANSTALK, {"settings": []}) is None  # Beanstalk's CPU defaults


def test_a_beanstalk_environment_on_spot_keeps_its_on_demand_base_and_share() -> None:
    env = footprint(
        BEANSTALK,
        {
            "settings": settings(
                ("aws:ec2:instances", "InstanceTypes", "g5.xlarge"),
                ("aws:ec2:instances", "EnableSpot", "true"),
                ("aws:ec2:instances", "SpotFleetOnDemandBase", "1"),
                ("aws:autoscaling:asg", "MaxSize", "11"),
            )
        },
    )
    # 1 on-demand, then 70% of the rest (load-balanced default): 8 of 11.
    assert (env.market, env.on_demand_units(11)) == ("mixed", 8.0)


def test_a_beanstalk_scheduled_action_raises_its_max() -> None:
    env = footprint(
        BEANSTALK,
        {
            "settings": [
                *settings(("aws:ec2:instances", "InstanceTypes", "g5.xlarge")),
                {
                    "namespace": "aws:autoscaling:scheduledaction",
                    "resource": "burst",
                    "name": "MaxSize",
                    "value": "12",
                },
            ]
        },
    )
    assert env.max_units == 12.0


def test_a_beanstalk_environment_takes_its_templates_settings() -> None:
    template = stack_resource(
        BEANSTALK_TEMPLATE,
        "tpl",
        {
            "name": "gpu-template",
            "settings": settings(
                ("aws:ec2:instances", "InstanceTypes", "p4d.24xlarge"),
                ("aws:autoscaling:asg", "MaxSize", "10"),
                ("aws:autoscaling:asg", "MinSize", "2"),
            ),
        },
    )
    own = {"settings": settings(("aws:autoscaling:asg", "MaxSize", "3"))}
    for deps in ({"templateName": ["urn::tpl"]}, {}):
        env = stack_resource(BEANSTALK, "env", {**own, "templateName": "gpu-template"}, **deps)
        found = capacity_of([template, env])
        assert (found["env"].expected_units, found["env"].max_units) == (2.0, 3.0)
        assert found["env"].max_gpus == 24 and not found["env"].undetermined
        assert "tpl" not in found  # a template, not capacity
    alone = footprint(BEANSTALK, {**own, "templateName": "gpu-template"})
    assert any("not in this stack" in u for u in alone.undetermined)
    assert footprint(BEANSTALK_TEMPLATE, template.props).is_template


def test_beanstalk_settings_it_cannot_read_are_undetermined() -> None:
    preview = footprint(BEANSTALK, {"settings": UNKNOWN})
    assert preview.undetermined == ("settings are unknown during preview",) and preview.unknown
    wrong = footprint(
        BEANSTALK,
        {
            "settings": settings(
                ("aws:ec2:instances", "InstanceTypes", "g5.xlarge"),
                ("aws:autoscaling:asg", "MaxSize", "many"),
            )
        },
    )
    assert wrong.undetermined == ("MaxSize 'many' is not a number from 0 to 1e+06",)


# --- CodeBuild fleets -------------------------------------------------------------------------

CODEBUILD = "aws:codebuild/fleet:Fleet"


def test_a_codebuild_gpu_fleet_is_sized_by_its_compute_type_and_unpriced() -> None:
    small = footprint(
        CODEBUILD,
        {
            "baseCapacity": 2,
            "computeType": "BUILD_GENERAL1_SMALL",
            "environmentType": "LINUX_GPU_CONTAINER",
            "scalingConfiguration": {"maxCapacity": 5},
        },
    )
    assert machines(small) == [("codebuild.build_general1_small.gpu", "A10G", 1)]
    assert (small.expected_units, small.max_units, small.max_gpus) == (2.0, 5.0, 5)
    large = footprint(
        CODEBUILD,
        {
            "baseCapacity": 1,
            "computeType": "BUILD_GENERAL1_LARGE",
            "environmentType": "LINUX_GPU_CONTAINER",
        },
    )
    assert (large.max_gpus, large.machines[0].gpu_name) == (4, "V100")
    custom = footprint(
        CODEBUILD,
        {
            "baseCapacity": 1,
            "computeType": "CUSTOM_INSTANCE_TYPE",
            "computeConfiguration": {"instanceType": "g6.12xlarge"},
            "environmentType": "LINUX_GPU_CONTAINER",
        },
    )
    assert machines(custom) == [("codebuild.g6.12xlarge", "L4", 4)]
    cost = price_stack([stack_resource(CODEBUILD, "cb", small_props())], shipped_rate_card())
    (line,) = cost.resources
    assert line.unpriced and "no catalog price" in line.unpriced
    assert line.expected.monthly_usd is None  # unpriced, never $0


def small_props() -> dict[str, Any]:
    return {
        "baseCapacity": 2,
        "computeType": "BUILD_GENERAL1_SMALL",
        "environmentType": "LINUX_GPU_CONTAINER",
    }


def test_codebuild_fleets_without_gpus_or_of_an_unknown_gpu_type() -> None:
    assert (
        read_gpu_footprint(CODEBUILD, {**small_props(), "environmentType": "LINUX_CONTAINER"})
        is None
    )
    medium = footprint(CODEBUILD, {**small_props(), "computeType": "BUILD_GENERAL1_MEDIUM"})
    assert any("documents no GPUs" in u for u in medium.undetermined)
    preview = footprint(CODEBUILD, {**small_props(), "environmentType": UNKNOWN})
    assert preview.unknown


def test_scalers_that_link_in_circles_or_to_thousands_end_quickly() -> None:
    """Hostile links: two targets naming each other, and one depending on 20,000 resources."""
    spot = {"scalableDimension": "ec2:spot-fleet-request:TargetCapacity", "maxCapacity": 9}
    first = stack_resource(TARGET, "a", {**spot, "resourceId": UNKNOWN}, resourceId=["urn::b"])
    second = stack_resource(TARGET, "b", {**spot, "resourceId": UNKNOWN}, resourceId=["urn::a"])
    found = capacity_of([first, second])
    assert set(found) == {"a", "b"} and all(f.undetermined for f in found.values())
    many = [stack_resource("aws:s3/bucket:Bucket", f"b{i}", {}) for i in range(20_000)]
    wide = stack_resource(
        TARGET, "wide", {**spot, "resourceId": UNKNOWN}, resourceId=[r.urn for r in many]
    )
    assert "it sizes b0" in capacity_of([*many, wide])["wide"].undetermined[0]


def test_the_offline_engine_gives_the_ids_emr_scaling_ids_are_built_from() -> None:
    """``instancegroup/<cluster id>/<core group id>``: a program builds it from the cluster's
    outputs, which the offline engine answers as EMR would."""
    rid, out = realistic_outputs(
        CLUSTER,
        "emr",
        {"coreInstanceGroup": {"instanceType": "g5.xlarge"}, "releaseLabel": "emr-7.2.0"},
    )
    assert rid.startswith("j-") and out["id"] == rid
    assert out["coreInstanceGroup"]["id"].startswith("ig-")
    assert out["coreInstanceGroup"]["instanceType"] == "g5.xlarge"
    group_id, _ = realistic_outputs(GROUP, "task", {"clusterId": rid})
    assert group_id.startswith("ig-") and group_id != out["coreInstanceGroup"]["id"]

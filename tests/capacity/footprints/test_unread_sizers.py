"""GPU capacity whose size a resource gpufleet does not read sets is undetermined, as users
write such resources: a sizing type nothing reads, or a resource of a package gpufleet has no
tables for with sizing properties, linked by a dependency (directly or through an endpoint) or
by a name; resources that size nothing, or size no GPU capacity, leave it alone."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gpufleet.capacity.footprints.model import GpuFootprint
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.policies.testing import UNKNOWN
from tests.capacity.footprints.stacks import capacity_by_name, stack_resource

_GROUP = stack_resource(
    "aws:autoscaling/group:Group",
    "asg",
    {
        "name": "gpu-asg",
        "minSize": 0,
        "maxSize": 2,
        "mixedInstancesPolicy": {
            "launchTemplate": {"overrides": [{"instanceType": "p5.48xlarge"}]}
        },
    },
)


def _set_by(footprint: GpuFootprint) -> list[str]:
    return [u for u in footprint.undetermined if u.startswith("its size is set by")]


def test_a_scaling_plan_makes_the_group_it_names_undetermined() -> None:
    plan = stack_resource(
        "aws:autoscalingplans/scalingPlan:ScalingPlan",
        "plan",
        {
            "name": "gpu-asg",  # its own name, even when it is the group's, is not its target
            "scalingInstructions": [
                {
                    "resourceId": "autoScalingGroup/gpu-asg",
                    "scalableDimension": "autoscaling:autoScalingGroup:DesiredCapacity",
                    "minCapacity": 0,
                    "maxCapacity": 50,
                }
            ],
        },
    )
    group = capacity_by_name([_GROUP, plan])["asg"]
    assert _set_by(group) == [
        "its size is set by aws:autoscalingplans/scalingPlan:ScalingPlan plan, which gpufleet "
        "does not read"
    ]
    assert not group.unknown
    # Linked by its dependency on the group in a preview, when the name is not known yet.
    by_dependency = replace(
        plan,
        props={"scalingInstructions": [{"resourceId": UNKNOWN, "maxCapacity": 50}]},
        property_dependencies={"scalingInstructions": ["urn::asg"]},
    )
    assert _set_by(capacity_by_name([_GROUP, by_dependency])["asg"])


def test_a_node_group_makes_its_gpu_node_template_undetermined() -> None:
    template = stack_resource(
        "gcp:compute/nodeTemplate:NodeTemplate",
        "nt",
        {
            "nodeType": "n1-node-96-624",
            "accelerators": [{"acceleratorType": "nvidia-tesla-t4", "acceleratorCount": 4}],
        },
    )
    group = stack_resource(
        "gcp:compute/nodeGroup:NodeGroup",
        "ng",
        {"nodeTemplate": UNKNOWN, "autoscalingPolicy": {"mode": "ON", "maxNodes": 10}},
        nodeTemplate=["nt"],
    )
    assert _set_by(capacity_by_name([template, group])["nt"]) == [
        "its size is set by gcp:compute/nodeGroup:NodeGroup ng, which gpufleet does not read"
    ]


_CONFIG = stack_resource(
    "aws:sagemaker/endpointConfiguration:EndpointConfiguration",
    "config",
    {
        "name": "llm-config",
        "productionVariants": [
            {
                "variantName": "AllTraffic",
                "instanceType": "ml.g5.12xlarge",
                "initialInstanceCount": 1,
            }
        ],
    },
)
_ENDPOINT = stack_resource(
    "aws:sagemaker/endpoint:Endpoint",
    "endpoint",
    {"name": "llm", "endpointConfigName": "llm-config"},
    endpointConfigName=["config"],
)


@pytest.mark.parametrize(
    ("type_", "props"),
    [
        (
            "aws-native:applicationautoscaling:ScalableTarget",
            {
                "resourceId": UNKNOWN,
                "scalableDimension": "sagemaker:variant:DesiredInstanceCount",
                "minCapacity": 1,
                "maxCapacity": 40,
            },
        ),
        ("acme:scaling:EndpointScaler", {"target": UNKNOWN, "settings": {"max_replicas": 40}}),
    ],
)
def test_an_actuator_of_another_package_through_an_endpoint(
    type_: str, props: dict[str, Any]
) -> None:
    """A native-provider type or a remote component, linked to an endpoint in front of the
    capacity (its configuration)."""
    actuator = stack_resource(
        type_, "actuator", props, resourceId=["endpoint"], target=["endpoint"]
    )
    config = capacity_by_name([_CONFIG, _ENDPOINT, actuator])["config/AllTraffic"]
    (why,) = _set_by(config)
    assert why.startswith(f"its size is set by {type_} actuator (")
    assert why.endswith("), which gpufleet does not read")


def test_kubernetes_and_native_resources_by_name_and_sizing_keys() -> None:
    scheduled = stack_resource(
        "aws-native:autoscaling:ScheduledAction",
        "scheduled",
        {"autoScalingGroupName": "GPU-ASG", "MaxSize": 80, "Recurrence": "0 8 * * *"},
    )
    assert _set_by(capacity_by_name([_GROUP, scheduled])["asg"]) == [
        "its size is set by aws-native:autoscaling:ScheduledAction scheduled (MaxSize), which "
        "gpufleet does not read"
    ]


@pytest.mark.parametrize(
    "other",
    [
        # Sizes something else (a Deployment), though it names nothing of the stack's GPUs.
        stack_resource(
            "kubernetes:autoscaling/v2:HorizontalPodAutoscaler",
            "hpa",
            {"spec": {"minReplicas": 1, "maxReplicas": 30, "scaleTargetRef": {"name": "web"}}},
        ),
        # Depends on the group, sizes nothing.
        stack_resource(
            "aws-native:cloudwatch:Alarm",
            "alarm",
            {"dimensions": [{"name": "AutoScalingGroupName", "value": "gpu-asg"}], "threshold": 1},
            dimensions=["asg"],
        ),
        # A sizing type that sizes no GPUs (its tasks run on the group, within its max).
        stack_resource(
            "aws:ecs/service:Service",
            "service",
            {"desiredCount": 12, "capacityProviderStrategies": [{"capacityProvider": "gpu-asg"}]},
            capacityProviderStrategies=["asg"],
        ),
        # A scaler gpufleet reads: its own reading, not "set by".
        stack_resource(
            "aws:autoscaling/schedule:Schedule",
            "schedule",
            {"autoscalingGroupName": "gpu-asg", "maxSize": 2, "recurrence": "0 8 * * 1"},
        ),
        # Tags naming the group are not a target; a local component's outputs are not a size.
        stack_resource(
            "acme:index:Dashboard",
            "dashboard",
            {"tags": {"group": "gpu-asg"}, "maxSize": 9, "title": "GPUs"},
        ),
        replace(
            stack_resource("acme:index:Fleet", "fleet", {"maxSize": 9}, maxSize=["asg"]),
            has_provider=False,
        ),
    ],
    ids=lambda r: r.type,
)
def test_what_sizes_no_gpu_capacity_leaves_it_alone(other: StackResource) -> None:
    group = capacity_by_name([_GROUP, other])["asg"]
    assert _set_by(group) == [], group.undetermined


def test_hostile_properties_are_searched_within_limits() -> None:
    deep: Any = {"maxSize": 3}
    for _ in range(5_000):
        deep = {"next": deep}
    wide = {f"key{i}": [{"x": i}] * 3 for i in range(20_000)}
    for props in (deep, wide, {"items": ["gpu-asg"] * 100_000}):
        other = stack_resource("acme:index:Thing", "thing", props)
        group = capacity_by_name([_GROUP, other])["asg"]
        assert _set_by(group) == [], group.undetermined


_SCALE_SET = stack_resource(
    "azure-native:compute:VirtualMachineScaleSet",
    "vmss",
    {"name": "gpu-vmss", "sku": {"name": "Standard_NC24ads_A100_v4", "capacity": 2}},
)
_MIG = [
    stack_resource(
        "gcp:compute/instanceTemplate:InstanceTemplate", "tpl", {"machineType": "a2-highgpu-1g"}
    ),
    stack_resource(
        "gcp:compute/instanceGroupManager:InstanceGroupManager",
        "mig",
        {"name": "gpu-mig", "targetSize": 1},
        instanceTemplate=["tpl"],
    ),
]


@pytest.mark.parametrize(
    ("capacity", "actuator", "target", "key"),
    [
        (
            [_SCALE_SET],
            stack_resource(
                "azure:monitoring/autoscaleSetting:AutoscaleSetting",
                "classic",
                {
                    "targetResourceId": UNKNOWN,
                    "profiles": [{"capacity": {"default": 2, "minimum": 1, "maximum": 30}}],
                },
                targetResourceId=["vmss"],
            ),
            "vmss",
            "profiles.capacity.",
        ),
        (
            _MIG,
            stack_resource(
                "google-native:compute/v1:Autoscaler",
                "native",
                {"target": UNKNOWN, "autoscalingPolicy": {"maxNumReplicas": 30}},
                target=["mig"],
            ),
            "mig",
            "autoscalingPolicy.maxNumReplicas",
        ),
    ],
)
def test_native_and_classic_autoscalers_by_dependency(
    capacity: list[StackResource], actuator: StackResource, target: str, key: str
) -> None:
    (why,) = _set_by(capacity_by_name([*capacity, actuator])[target])
    assert why.startswith(f"its size is set by {actuator.type} {actuator.name} ({key}")

"""GPU footprints of GCP resources as users write them: accelerator-optimized and N1 machines,
templates (global and regional), instances, zonal and regional instance groups, reservations;
resize requests, Dataproc clusters and workflow templates, Model Garden endpoints."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gpufleet.capacity.footprints import read_gpu_footprint, read_gpu_footprints
from gpufleet.capacity.footprints.model import GpuFootprint
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.policies.testing import UNKNOWN
from tests.capacity.footprints.stacks import capacity_by_name, stack_resource


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


_TEMPLATE = stack_resource(
    "gcp:compute/instanceTemplate:InstanceTemplate", "tpl", {"machineType": "a3-highgpu-8g"}
)


def _group(type_: str = "gcp:compute/instanceGroupManager:InstanceGroupManager") -> StackResource:
    return stack_resource(
        type_, "group", {"name": "gpu-group", "targetSize": 0}, instanceTemplate=["tpl"]
    )


@pytest.mark.parametrize(
    ("type_", "group_type"),
    [
        (
            "gcp:compute/resizeRequest:ResizeRequest",
            "gcp:compute/instanceGroupManager:InstanceGroupManager",
        ),
        (
            "gcp:compute/regionResizeRequest:RegionResizeRequest",
            "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
        ),
    ],
)
def test_a_resize_request_adds_its_vms_to_the_group_it_names(type_: str, group_type: str) -> None:
    # By a dependency on the group, and by its URL (a request written with the literal name).
    by_dependency = stack_resource(
        type_,
        "rr",
        {"instanceGroupManager": UNKNOWN, "resizeBy": 4},
        instanceGroupManager=["group"],
    )
    by_url = stack_resource(
        type_,
        "rr2",
        {
            "instanceGroupManager": "projects/p/zones/z/instanceGroupManagers/gpu-group",
            "resizeBy": 2.0,
        },
    )
    group = capacity_by_name([_TEMPLATE, _group(group_type), by_dependency, by_url])["group"]
    assert (group.expected_units, group.max_units, group.max_gpus) == (6.0, 6.0, 48)
    assert group.undetermined == ()


@pytest.mark.parametrize(
    ("resize_by", "why"),
    [
        (UNKNOWN, "resizeBy is unknown during preview"),
        (None, "its resizeBy is not set"),
        (-3, "resizeBy -3 is not a number"),
        (1.5, "resizeBy 1.5 is not a whole number"),
    ],
)
def test_a_resize_request_of_unreadable_size_makes_its_group_undetermined(
    resize_by: Any, why: str
) -> None:
    request = stack_resource(
        "gcp:compute/resizeRequest:ResizeRequest",
        "rr",
        {"instanceGroupManager": "gpu-group", "resizeBy": resize_by},
    )
    group = capacity_by_name([_TEMPLATE, _group(), request])["group"]
    assert any(why in u for u in group.undetermined), group.undetermined


def test_a_resize_request_of_a_cpu_group_or_one_elsewhere_adds_no_gpus() -> None:
    cpu = stack_resource(
        "gcp:compute/instanceTemplate:InstanceTemplate", "tpl", {"machineType": "e2-small"}
    )
    request = stack_resource(
        "gcp:compute/resizeRequest:ResizeRequest",
        "rr",
        {"instanceGroupManager": "gpu-group", "resizeBy": 40},
    )
    assert capacity_by_name([cpu, _group(), request]) == {}
    elsewhere = replace(request, props={"instanceGroupManager": "other-group", "resizeBy": 40})
    assert capacity_by_name([_TEMPLATE, _group(), elsewhere])["group"].max_units == 0.0


def _dataproc(config: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"region": "us-central1", "clusterConfig": config, **extra}


_T4_WORKERS = {
    "numInstances": 4,
    "machineType": "n1-standard-16",
    "accelerators": [{"acceleratorType": "nvidia-tesla-t4", "acceleratorCount": 2}],
}


def test_dataproc_workers_and_secondary_workers_are_parts_of_their_own() -> None:
    parts = read_gpu_footprints(
        "gcp:dataproc/cluster:Cluster",
        _dataproc(
            {
                "masterConfig": {"machineType": "n1-standard-8"},
                "workerConfig": {"numInstances": 2, "machineType": "a2-highgpu-2g"},
                "preemptibleWorkerConfig": {"numInstances": 6},
            }
        ),
    )
    by_part = {p.part: p for p in parts}
    assert set(by_part) == {"workers", "secondary-workers"}  # a CPU master holds no GPUs
    workers, secondary = by_part["workers"], by_part["secondary-workers"]
    assert (workers.max_gpus, workers.market, workers.region) == (4, "on_demand", "us-central1")
    # Secondary workers: the workers' machine type, preemptible by default.
    assert [m.instance_type for m in secondary.machines] == ["a2-highgpu-2g"]
    assert (secondary.max_gpus, secondary.market) == (12, "spot")
    assert all("Dataproc adds its own fee" in p.notes[0] for p in parts)


def test_dataproc_attached_gpus_default_machine_and_counts() -> None:
    (workers,) = read_gpu_footprints(
        "gcp:dataproc/cluster:Cluster",
        _dataproc(
            {
                # No machine type: Dataproc's n1-standard-4, with the accelerators attached.
                "workerConfig": {
                    "accelerators": [
                        {"acceleratorType": "nvidia-tesla-v100", "acceleratorCount": 1}
                    ]
                },
                # Secondary workers of an N1 type get no attached GPUs.
                "preemptibleWorkerConfig": {
                    "numInstances": 10,
                    "preemptibility": "NON_PREEMPTIBLE",
                },
            }
        ),
    )
    assert [(m.instance_type, m.gpu_name, m.gpus) for m in workers.machines] == [
        ("n1-standard-4", "V100", 1)
    ]
    assert workers.max_units == 2.0  # Dataproc's default of two primary workers


def test_dataproc_autoscaling_policy_in_the_stack_raises_its_max() -> None:
    policy = stack_resource(
        "gcp:dataproc/autoscalingPolicy:AutoscalingPolicy",
        "policy",
        {
            "policyId": "gpu-policy",
            "workerConfig": {"minInstances": 2, "maxInstances": 10},
            "secondaryWorkerConfig": {"maxInstances": 20},
        },
    )
    bucket = stack_resource("gcp:storage/bucket:Bucket", "bucket", {"name": "staging"})
    config = {
        "workerConfig": {**_T4_WORKERS, "machineType": "g2-standard-8", "accelerators": []},
        "stagingBucket": "staging",
        "autoscalingConfig": {"policyUri": UNKNOWN},
    }
    # Linked by its dependency (beside the bucket's), or by the policy's literal URI.
    linked = stack_resource(
        "gcp:dataproc/cluster:Cluster", "dp", _dataproc(config), clusterConfig=["policy", "bucket"]
    )
    literal = stack_resource(
        "gcp:dataproc/cluster:Cluster",
        "dp",
        _dataproc(
            {
                **config,
                "autoscalingConfig": {
                    "policyUri": "projects/p/regions/us-central1/autoscalingPolicies/gpu-policy"
                },
            }
        ),
    )
    for cluster in (linked, literal):
        found = capacity_by_name([policy, bucket, cluster])
        workers, secondary = found["dp/workers"], found["dp/secondary-workers"]
        assert (workers.expected_units, workers.max_units, workers.scales_itself) == (4, 10, True)
        assert (secondary.expected_units, secondary.max_units) == (0.0, 20.0)
        assert workers.undetermined == secondary.undetermined == ()
    # Its policy elsewhere: how far it scales (secondary workers too) is not known.
    found = capacity_by_name([literal])
    assert set(found) == {"dp/workers", "dp/secondary-workers"}
    for part in found.values():
        assert part.max_units is None
        assert part.undetermined == (
            "its autoscaling policy gpu-policy is not in this stack: how many workers it may "
            "add is not known",
        )


def test_dataproc_unknowns_and_gke_node_pools() -> None:
    (unknown,) = read_gpu_footprints("gcp:dataproc/cluster:Cluster", {"clusterConfig": UNKNOWN})
    assert unknown.undetermined == ("clusterConfig is unknown during preview",) and unknown.unknown
    (count,) = read_gpu_footprints(
        "gcp:dataproc/cluster:Cluster",
        _dataproc({"workerConfig": {**_T4_WORKERS, "numInstances": UNKNOWN}}),
    )
    assert count.undetermined == ("workers.numInstances is unknown during preview",)
    # A policy a preview does not name yet (and is not linked to one in the stack).
    policy = {"workerConfig": _T4_WORKERS, "autoscalingConfig": {"policyUri": UNKNOWN}}
    (workers,) = read_gpu_footprints("gcp:dataproc/cluster:Cluster", _dataproc(policy))
    assert (workers.max_units, workers.unknown) == (None, True)
    assert workers.undetermined == ("its autoscaling policy is unknown during preview",)
    # A CPU cluster holds no GPUs, whatever it says of its counts.
    cpu = {"workerConfig": {"machineType": "n2-standard-8", "numInstances": "many"}}
    assert read_gpu_footprints("gcp:dataproc/cluster:Cluster", _dataproc(cpu)) == ()
    (pool,) = read_gpu_footprints(
        "gcp:dataproc/cluster:Cluster",
        {
            "virtualClusterConfig": {
                "kubernetesClusterConfig": {
                    "gkeClusterConfig": {
                        "nodePoolTargets": [
                            {
                                "nodePool": "projects/p/locations/l/clusters/c/nodePools/gpu",
                                "roles": ["SPARK_EXECUTOR"],
                                "nodePoolConfig": {
                                    "locations": ["us-central1-a", "us-central1-b"],
                                    "config": {"machineType": "g2-standard-4", "spot": True},
                                    "autoscaling": {"minNodeCount": 0, "maxNodeCount": 5},
                                },
                            }
                        ]
                    }
                }
            }
        },
    )
    assert (pool.part, pool.max_gpus, pool.market) == ("gpu", 10, "spot")


def test_a_dataproc_workflow_template_is_a_run_started_outside_the_stack() -> None:
    template = {
        "location": "us-central1",
        "dagTimeout": "1800s",
        "placement": {
            "managedCluster": {
                "clusterName": "run",
                "config": {
                    "workerConfig": _T4_WORKERS,
                    "secondaryWorkerConfig": {
                        "numInstances": 2,
                        "machineType": "n1-standard-8",
                        "accelerators": [
                            {"acceleratorType": "nvidia-tesla-t4", "acceleratorCount": 1}
                        ],
                        "preemptibility": "SPOT",
                    },
                },
            }
        },
    }
    parts = read_gpu_footprints("gcp:dataproc/workflowTemplate:WorkflowTemplate", template)
    assert [(p.part, p.max_gpus, p.market) for p in parts] == [
        ("workers", 8, "on_demand"),
        ("secondary-workers", 2, "spot"),
    ]
    assert all(p.outside_stack and p.run_hours == 0.5 for p in parts)
    # On existing clusters (a cluster selector): no capacity of its own.
    selector = {"placement": {"clusterSelector": {"clusterLabels": {"env": "prod"}}}}
    assert read_gpu_footprints("gcp:dataproc/workflowTemplate:WorkflowTemplate", selector) == ()


_GARDEN = "gcp:vertex/aiEndpointWithModelGardenDeployment:AiEndpointWithModelGardenDeployment"


def test_a_model_garden_endpoint_counts_replicas_of_its_hosts() -> None:
    found = footprint(
        _GARDEN,
        {
            "location": "us-central1",
            "publisherModelName": "publishers/meta/models/llama3_1@llama-3.1-405b",
            "deployConfig": {
                "dedicatedResources": {
                    "machineSpec": {
                        "machineType": "a3-highgpu-8g",
                        "acceleratorType": "NVIDIA_H100_80GB",
                        "acceleratorCount": 8,
                        "multihostGpuNodeCount": 2,
                    },
                    "minReplicaCount": 1,
                    "maxReplicaCount": 2,
                    "spot": True,
                }
            },
        },
    )
    assert (found.expected_units, found.max_units, found.max_gpus) == (2.0, 4.0, 32)
    assert (found.market, found.scales_itself) == ("spot", True)
    assert "Compute Engine rates" in found.notes[0]


def test_a_model_garden_endpoint_on_default_machines_is_undetermined() -> None:
    found = footprint(_GARDEN, {"location": "us-central1", "huggingFaceModelId": "google/gemma"})
    assert "Model Garden deploys the model on its default machines" in found.undetermined[0]
    unknown = footprint(_GARDEN, {"deployConfig": {"dedicatedResources": UNKNOWN}})
    assert unknown.unknown
    cpu = {
        "deployConfig": {
            "dedicatedResources": {
                "machineSpec": {"machineType": "n1-standard-4"},
                "minReplicaCount": 1,
            }
        }
    }
    assert read_gpu_footprint(_GARDEN, cpu) is None

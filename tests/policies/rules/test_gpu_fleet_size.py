"""The ``gpu-fleet-size`` rule through the servicer the pack serves: resources that must pass and
resources that must fail, as users write them."""

from __future__ import annotations

import pytest

from gpufleet.policies.testing import PolicyHarness, StackInput
from tests.policies.inputs import GCP_TEMPLATE, LT, MIG, SECURE_LT, TAGS, asg_from_template


def test_gpu_fleet_size_resolves_the_launch_template_in_a_preview() -> None:
    harness = PolicyHarness(config={"gpu-fleet-size": {"maxGpusPerFleet": 16}}, dry_run=True)
    template = StackInput(LT, {**SECURE_LT, "instanceType": "g5.12xlarge"}, "tpl")
    small = harness.analyze_stack([template, asg_from_template(4, template.urn("dev"))])
    assert [v for v in small if v.policy == "gpu-fleet-size"] == []
    big = harness.analyze_stack([template, asg_from_template(5, template.urn("dev"))])
    found = [v for v in big if v.policy == "gpu-fleet-size"]
    assert len(found) == 1 and "can hold 20 GPUs (5 x g5.12xlarge" in found[0].message
    assert found[0].urn == asg_from_template(5, "").urn("dev")


def test_gpu_fleet_size_mig_and_reservation() -> None:
    harness = PolicyHarness(config={"gpu-fleet-size": {"maxGpusPerFleet": 8}})
    template = StackInput(GCP_TEMPLATE, {"labels": TAGS, "machineType": "a2-highgpu-4g"}, "t")
    mig = StackInput(
        MIG, {"targetSize": 3}, "g", property_dependencies={"versions": [template.urn("dev")]}
    )
    reservation = StackInput(
        "gcp:compute/reservation:Reservation",
        {
            "specificReservation": {
                "count": 2,
                "instanceProperties": {"machineType": "a3-highgpu-8g"},
            }
        },
        "res",
    )
    found = [
        v
        for v in harness.analyze_stack([template, mig, reservation])
        if v.policy == "gpu-fleet-size"
    ]
    assert sorted(v.message.split(" can hold ")[1].split(" GPUs")[0] for v in found) == ["12", "16"]


@pytest.mark.parametrize(
    ("resources", "name", "gpus"),
    [
        (
            [
                StackInput(
                    "aws:ec2/fleet:Fleet",
                    {
                        "launchTemplateConfigs": [
                            {"overrides": [{"instanceType": "p4d.24xlarge"}]}
                        ],
                        "targetCapacitySpecification": {"totalTargetCapacity": 3},
                    },
                    "ec2-fleet",
                )
            ],
            "ec2-fleet",
            24,
        ),
        (
            [
                StackInput(
                    "aws:ec2/spotFleetRequest:SpotFleetRequest",
                    {
                        "launchSpecifications": [{"instanceType": "g5.48xlarge"}],
                        "targetCapacity": 2,
                    },
                    "spot-fleet",
                )
            ],
            "spot-fleet",
            16,
        ),
        (
            [
                StackInput(
                    "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
                    {"labels": TAGS, "region": "us-east4", "machineType": "a3-highgpu-8g"},
                    "tpl",
                ),
                StackInput(
                    "gcp:compute/instanceGroupManager:InstanceGroupManager",
                    {"zone": "us-east4-a", "targetSize": 2},
                    "zonal",
                    property_dependencies={
                        "versions": [
                            "urn:pulumi:dev::test::gcp:compute/regionInstanceTemplate:"
                            "RegionInstanceTemplate::tpl"
                        ]
                    },
                ),
            ],
            "zonal",
            16,
        ),
    ],
)
def test_fleets_and_groups_of_every_kind(resources: list[StackInput], name: str, gpus: int) -> None:
    harness = PolicyHarness(config={"gpu-fleet-size": {"maxGpusPerFleet": 8}})
    found = [v for v in harness.analyze_stack(resources) if v.policy == "gpu-fleet-size"]
    assert [(v.urn.rsplit("::", 1)[1], f"can hold {gpus} GPUs" in v.message) for v in found] == [
        (name, True)
    ]


def weighted_group(max_gpus: int) -> StackInput:
    """A group counted in GPUs, as SpotFleet builds it: each p4d.24xlarge counts for 8."""
    return StackInput(
        "aws:autoscaling/group:Group",
        {
            "desiredCapacityType": "units",
            "desiredCapacity": 16,
            "minSize": 0,
            "maxSize": max_gpus,
            "mixedInstancesPolicy": {
                "launchTemplate": {
                    "overrides": [{"instanceType": "p4d.24xlarge", "weightedCapacity": "8"}]
                }
            },
            "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()],
        },
        "evals",
    )


def test_a_group_counted_in_gpus_holds_its_max_size_in_gpus() -> None:
    """Its max size is GPUs, not instances: 16 GPUs of 8-GPU machines is two machines, within
    a limit of 16 (it was read as sixteen machines, 128 GPUs)."""
    harness = PolicyHarness(config={"gpu-fleet-size": {"maxGpusPerFleet": 16}})
    at_limit = harness.analyze_stack([weighted_group(16)])
    assert [v for v in at_limit if v.policy == "gpu-fleet-size"] == []
    (over,) = [
        v for v in harness.analyze_stack([weighted_group(20)]) if v.policy == "gpu-fleet-size"
    ]
    # 20 GPUs take three 8-GPU machines: 24 GPUs, the last one overshooting.
    assert "can hold 24 GPUs (3 x p4d.24xlarge, 8 x A100 each)" in over.message


def two_version_mig(base_machine: str, rest_machine: str, size: int) -> list[StackInput]:
    """A MIG of a base version of fixed size 1 (its own template) and a rest version."""
    link = "https://www.googleapis.com/compute/v1/projects/p/global/instanceTemplates/"
    base = StackInput(
        GCP_TEMPLATE,
        {"labels": TAGS, "machineType": base_machine, "selfLink": f"{link}base"},
        "base",
    )
    rest = StackInput(
        GCP_TEMPLATE,
        {"labels": TAGS, "machineType": rest_machine, "selfLink": f"{link}rest"},
        "rest",
    )
    mig = StackInput(
        MIG,
        {
            "targetSize": size,
            "versions": [
                {"instanceTemplate": f"{link}base", "targetSize": {"fixed": 1}},
                {"instanceTemplate": f"{link}rest"},
            ],
        },
        "g",
        property_dependencies={"versions": [base.urn("dev"), rest.urn("dev")]},
    )
    return [base, rest, mig]


def test_a_two_version_group_counts_each_version_in_its_machines() -> None:
    harness = PolicyHarness(config={"gpu-fleet-size": {"maxGpusPerFleet": 8}})
    found = [
        v
        for v in harness.analyze_stack(two_version_mig("a3-highgpu-8g", "g2-standard-4", 4))
        if v.policy == "gpu-fleet-size"
    ]
    (violation,) = found
    assert "can hold 11 GPUs (1 x a3-highgpu-8g, 8 x H100 each + 3 x g2-standard-4" in (
        violation.message
    )


def test_a_version_whose_machine_cannot_be_read_does_not_hide_the_group() -> None:
    """An unknown machine in the fixed version: the group is still held to the limit, as all
    of the other version's machines (and the unknown is reported by gpu-size-undetermined)."""
    harness = PolicyHarness(config={"gpu-fleet-size": {"maxGpusPerFleet": 8}})
    verdicts = harness.analyze_stack(two_version_mig("a9-highgpu-8g", "g2-standard-4", 1000))
    (violation,) = [v for v in verdicts if v.policy == "gpu-fleet-size"]
    assert "can hold 1000 GPUs" in violation.message


def test_a_clusters_pools_add_up_to_one_fleet() -> None:
    """Two pools of 8 and 16 GPUs, each within a limit of 16, are a cluster of 24."""
    harness = PolicyHarness(config={"gpu-fleet-size": {"maxGpusPerFleet": 16}})
    pools = [
        {"name": "a", "nodeCount": 1, "nodeConfig": {"machineType": "a3-highgpu-8g"}},
        {"name": "b", "nodeCount": 2, "nodeConfig": {"machineType": "a2-highgpu-8g"}},
    ]
    cluster = StackInput(
        "gcp:container/cluster:Cluster", {"location": "us-central1-a", "nodePools": pools}, "gke"
    )
    (found,) = [v for v in harness.analyze_stack([cluster]) if v.policy == "gpu-fleet-size"]
    assert found.message.startswith("gke (GKE node pools) can hold 24 GPUs")
    assert "(a)" in found.message and "(b)" in found.message

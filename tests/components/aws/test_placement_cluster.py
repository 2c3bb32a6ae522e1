"""PlacementCluster under the offline engine: cluster placement, EFA interfaces per instance type,
capacity modes, validation."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.components.aws.placement_cluster import PlacementCluster, PlacementClusterArgs
from gpufleet.components.scaling import Scaling
from tests.components.aws.site import NETWORK, SUBNETS
from tests.components.component_checks import (
    TAGS,
    assert_children_of,
    assert_nothing_deprecated,
    assert_provider_would_accept,
    assert_tagged,
)
from tests.components.pulumi_mocks import Capture, capture, resolve


def cluster(**overrides: Any) -> tuple[Capture, PlacementCluster]:
    values: dict[str, Any] = {
        "tags": TAGS,
        "instance_type": "p4d.24xlarge",
        "nodes": 4,
        "subnet_id": SUBNETS[0],
        **NETWORK,
    }
    values.update(overrides)
    args = PlacementClusterArgs(**values)
    return capture(lambda: PlacementCluster("pretrain", args))


def test_placement_cluster_resources() -> None:
    cap, component = cluster()
    assert cap.types == sorted(
        [
            "gpufleet:aws:PlacementCluster",
            "aws:ec2/placementGroup:PlacementGroup",
            "aws:ec2/securityGroup:SecurityGroup",
            "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
            "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
            "aws:iam/role:Role",
            "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
            "aws:iam/instanceProfile:InstanceProfile",
            "aws:ec2/launchTemplate:LaunchTemplate",
            "aws:autoscaling/group:Group",
        ]
    )
    assert_children_of(cap, "gpufleet:aws:PlacementCluster", "pretrain")
    assert assert_tagged(cap) == 8
    assert assert_provider_would_accept(cap) >= 10
    assert_nothing_deprecated(cap)
    assert cap.one("aws:ec2/placementGroup:PlacementGroup").inputs["strategy"] == "cluster"
    assert resolve(component.placement_group_name) == "pretrain-pg"


def test_placement_cluster_security_group_only_talks_to_itself() -> None:
    cap, _ = cluster()
    group_id = cap.one("aws:ec2/securityGroup:SecurityGroup").outputs["id"]
    rules = cap.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule") + cap.of_type(
        "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
    )
    assert len(rules) == 2
    for rule in rules:
        assert rule.inputs["referencedSecurityGroupId"] == group_id
        assert rule.inputs["ipProtocol"] == "-1"
        assert "cidrIpv4" not in rule.inputs and "cidrIpv6" not in rule.inputs


def test_placement_cluster_metadata_hop_limit() -> None:
    """CKV_AWS_341: hop limit 1 by default; 2 only when containers must reach the role."""
    for overrides, hops in (({}, 1), ({"container_imds_access": True}, 2)):
        cap, _ = cluster(**overrides)
        options = cap.one("aws:ec2/launchTemplate:LaunchTemplate").inputs["metadataOptions"]
        assert (options["httpTokens"], options["httpPutResponseHopLimit"]) == ("required", hops)


def interfaces(cap: Capture) -> list[tuple[int, int, str]]:
    template = cap.one("aws:ec2/launchTemplate:LaunchTemplate").inputs
    return [
        (ni.get("networkCardIndex", 0), ni["deviceIndex"], ni["interfaceType"])
        for ni in template["networkInterfaces"]
    ]


def test_efa_interfaces_per_instance_type() -> None:
    p4d, _ = cluster(instance_type="p4d.24xlarge")
    assert interfaces(p4d) == [(0, 0, "efa"), (1, 1, "efa"), (2, 1, "efa"), (3, 1, "efa")]
    p5, _ = cluster(instance_type="p5.48xlarge")
    layout = interfaces(p5)
    assert layout[:2] == [(0, 0, "interface"), (0, 1, "efa-only")]
    assert layout[2:] == [(card, 0, "efa-only") for card in range(1, 32)]
    assert sum(kind == "efa-only" for *_, kind in layout) == 32
    g5, _ = cluster(instance_type="g5.48xlarge")
    assert interfaces(g5) == [(0, 0, "efa")]


def test_only_the_primary_interface_sets_public_ip_and_all_carry_the_groups() -> None:
    cap, _ = cluster(instance_type="p5.48xlarge", extra_security_group_ids=["sg-0egress000000000"])
    group_id = cap.one("aws:ec2/securityGroup:SecurityGroup").outputs["id"]
    template = cap.one("aws:ec2/launchTemplate:LaunchTemplate").inputs
    nis = template["networkInterfaces"]
    assert nis[0]["associatePublicIpAddress"] == "false"
    assert all("associatePublicIpAddress" not in ni for ni in nis[1:])
    assert all(ni["securityGroups"] == [group_id, "sg-0egress000000000"] for ni in nis)
    assert template["instanceType"] == "p5.48xlarge"


def test_placement_cluster_capacity_modes() -> None:
    on_demand, _ = cluster()
    asg = on_demand.one("aws:autoscaling/group:Group").inputs
    pg = on_demand.one("aws:ec2/placementGroup:PlacementGroup").outputs["id"]
    assert (asg["minSize"], asg["maxSize"], asg["desiredCapacity"]) == (4, 4, 4)
    assert asg["vpcZoneIdentifiers"] == [SUBNETS[0]] and asg["placementGroup"] == pg
    assert "launchTemplate" in asg and "mixedInstancesPolicy" not in asg

    spot, _ = cluster(capacity="spot")
    mixed = spot.one("aws:autoscaling/group:Group").inputs["mixedInstancesPolicy"]
    assert mixed["instancesDistribution"]["onDemandPercentageAboveBaseCapacity"] == 0
    assert mixed["launchTemplate"]["overrides"] == [{"instanceType": "p4d.24xlarge"}]

    reserved, _ = cluster(
        capacity="capacity_reservation", capacity_reservation_id="cr-0123456789abcdef0"
    )
    template = reserved.one("aws:ec2/launchTemplate:LaunchTemplate").inputs
    target = template["capacityReservationSpecification"]["capacityReservationTarget"]
    assert target == {"capacityReservationId": "cr-0123456789abcdef0"}


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"instance_type": "g6.xlarge"}, "g6.xlarge has no EFA"),
        ({"nodes": 0}, "greater than or equal to 1"),
        ({"capacity": "capacity_reservation"}, "needs capacity_reservation_id"),
        ({"capacity_reservation_id": "cr-0123456789abcdef0"}, "only used with capacity"),
        (
            {"capacity": "capacity_reservation", "capacity_reservation_id": "res-1"},
            "not a capacity reservation id",
        ),
        ({"capacity": "reserved"}, "Input should be 'on_demand', 'spot' or 'capacity_reservation'"),
        ({"ami_id": "ami-XYZ"}, "'ami-XYZ' is not an AMI id"),
    ],
)
def test_placement_cluster_validation(overrides: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {
        "tags": TAGS,
        "instance_type": "p4d.24xlarge",
        "nodes": 2,
        "subnet_id": SUBNETS[0],
        **NETWORK,
    }
    with pytest.raises(ValueError, match=message):
        PlacementClusterArgs(**(values | overrides))


def test_a_job_on_request_has_all_its_nodes_or_none() -> None:
    cap, _ = cluster(nodes=4, scaling=Scaling(mode="on_request", expected_hours=300))
    asg = cap.one("aws:autoscaling/group:Group")
    assert (asg.inputs["minSize"], asg.inputs["desiredCapacity"], asg.inputs["maxSize"]) == (
        0,
        0,
        4,
    )
    assert asg.ignore_changes == ["desiredCapacity"]
    assert {t["key"]: t["value"] for t in asg.inputs["tags"]}["expected-minutes"] == "18000"
    fixed, _ = cluster(nodes=4)
    group = fixed.one("aws:autoscaling/group:Group")
    assert (group.inputs["minSize"], group.inputs["desiredCapacity"]) == (4, 4)
    assert group.ignore_changes == []

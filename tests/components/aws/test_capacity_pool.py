"""CapacityPool under the offline engine: a targeted, protected reservation; Capacity Blocks looked
up, bought only when asked; validation."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.components.aws.ami import DLAMI_PARAMETERS
from gpufleet.components.aws.capacity_pool import (
    CapacityBlockRequest,
    CapacityPool,
    CapacityPoolArgs,
)
from tests.components.aws.site import NETWORK, SUBNETS
from tests.components.component_checks import (
    TAGS,
    assert_children_of,
    assert_nothing_deprecated,
    assert_provider_would_accept,
    assert_tagged,
)
from tests.components.pulumi_mocks import Capture, capture, resolve


def pool(**overrides: Any) -> tuple[Capture, CapacityPool]:
    values: dict[str, Any] = {
        "tags": TAGS,
        "instance_type": "p5.48xlarge",
        "instance_count": 2,
        "availability_zone": "us-east-1a",
        **NETWORK,
    }
    values.update(overrides)
    args = CapacityPoolArgs(**values)
    return capture(lambda: CapacityPool("reserved", args))


def test_capacity_pool_reservation_is_targeted_and_protected() -> None:
    cap, component = pool(end_date="2027-06-30T00:00:00Z")
    assert_children_of(cap, "gpufleet:aws:CapacityPool", "reserved")
    # Reservation, role, instance profile, security group and its egress rule, launch template.
    assert assert_tagged(cap) == 6
    assert assert_provider_would_accept(cap) >= 5
    assert_nothing_deprecated(cap)
    reservation = cap.one("aws:ec2/capacityReservation:CapacityReservation")
    assert reservation.protect is True
    assert reservation.inputs["instanceMatchCriteria"] == "targeted"
    assert reservation.inputs["instanceCount"] == 2
    assert reservation.inputs["availabilityZone"] == "us-east-1a"
    assert reservation.inputs["instancePlatform"] == "Linux/UNIX"
    assert (reservation.inputs["endDate"], reservation.inputs["endDateType"]) == (
        "2027-06-30T00:00:00Z",
        "limited",
    )
    template = cap.one("aws:ec2/launchTemplate:LaunchTemplate").inputs
    target = template["capacityReservationSpecification"]["capacityReservationTarget"]
    assert target["capacityReservationId"] == reservation.outputs["id"]
    assert template["metadataOptions"]["httpTokens"] == "required"
    assert template["metadataOptions"]["httpPutResponseHopLimit"] == 1
    assert resolve(component.capacity_reservation_id) == reservation.outputs["id"]
    # No capacity block unless asked.
    assert cap.invokes == [
        ("aws:ssm/getParameter:getParameter", {"name": DLAMI_PARAMETERS[("cuda", "x86_64")]})
    ]
    assert component.capacity_block_notice is None


def test_capacity_pool_without_end_date_is_unlimited() -> None:
    cap, _ = pool()
    reservation = cap.one("aws:ec2/capacityReservation:CapacityReservation").inputs
    assert reservation["endDateType"] == "unlimited" and "endDate" not in reservation


BLOCK = CapacityBlockRequest(
    instance_count=2, duration_hours=168, start_date_range="2027-03-01T00:00:00Z"
)


def test_capacity_block_is_looked_up_but_not_bought_by_default() -> None:
    cap, component = pool(capacity_block=BLOCK)
    (lookup,) = [args for token, args in cap.invokes if token.endswith("getCapacityBlockOffering")]
    assert lookup == {
        "instanceType": "p5.48xlarge",
        "instanceCount": 2,
        "capacityDurationHours": 168,
        "startDateRange": "2027-03-01T00:00:00Z",
    }
    assert not cap.of_type("aws:ec2/capacityBlockReservation:CapacityBlockReservation")
    assert component.capacity_block_launch_template_id is None
    assert len(cap.of_type("aws:ec2/launchTemplate:LaunchTemplate")) == 1
    notice = resolve(component.capacity_block_notice)
    assert notice.startswith("NOT PURCHASED: Capacity Block offering cb-")
    assert "18437.76 USD upfront" in notice and "purchase_capacity_block=True" in notice


def test_capacity_block_is_bought_only_when_asked() -> None:
    cap, component = pool(capacity_block=BLOCK, purchase_capacity_block=True)
    block = cap.one("aws:ec2/capacityBlockReservation:CapacityBlockReservation")
    offering_id = resolve(component.capacity_block_offering_id)
    assert block.inputs["capacityBlockOfferingId"] == offering_id
    assert block.protect is True and block.retain_on_delete is True
    assert resolve(component.capacity_block_notice).startswith(
        f"PURCHASED: Capacity Block {block.outputs['id']} charged 18437.76 USD at once"
    )
    # What runs in the block launches from a template of its own, held to the pool's defaults:
    # its security group (never the VPC's default), IMDSv2 at hop limit 1, encrypted disks.
    templates = {t.name: t for t in cap.of_type("aws:ec2/launchTemplate:LaunchTemplate")}
    assert set(templates) == {"reserved-lt", "reserved-block-lt"}
    block_template = templates["reserved-block-lt"]
    assert resolve(component.capacity_block_launch_template_id) == block_template.outputs["id"]
    inputs = block_template.inputs
    assert inputs["instanceMarketOptions"] == {"marketType": "capacity-block"}
    target = inputs["capacityReservationSpecification"]["capacityReservationTarget"]
    assert target["capacityReservationId"] == block.outputs["id"]
    group = cap.one("aws:ec2/securityGroup:SecurityGroup").outputs["id"]
    assert inputs["networkInterfaces"][0]["securityGroups"] == [group]
    assert inputs["metadataOptions"]["httpPutResponseHopLimit"] == 1
    assert inputs["blockDeviceMappings"][0]["ebs"]["encrypted"] == "true"
    assert "instanceMarketOptions" not in templates["reserved-lt"].inputs
    assert assert_tagged(cap) == 8


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"purchase_capacity_block": True}, "purchase_capacity_block needs capacity_block"),
        (
            {"instance_type": "g6.xlarge", "capacity_block": BLOCK},
            "g6.xlarge is not sold as Capacity Blocks",
        ),
        ({"instance_type": "m5.large"}, "not an AWS GPU instance type"),
        ({"availability_zone": "use1-az4"}, "not an availability zone name"),
        ({"ami_id": "ami-1"}, "'ami-1' is not an AMI id"),
        ({"end_date": "next summer"}, "not an RFC 3339 time"),
        ({"end_date": "2027-06-30T00:00:00"}, "needs a time zone"),
        ({"instance_platform": "Linux"}, "is not one of"),
        ({"instance_count": 0}, "greater than or equal to 1"),
        ({"vpc_id": None}, "vpc_id"),
        ({"security_group_ids": ["sg-0123456789abcdef0"]}, "Extra inputs are not permitted"),
    ],
)
def test_capacity_pool_validation(overrides: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {
        "tags": TAGS,
        "instance_type": "p5.48xlarge",
        "instance_count": 1,
        "availability_zone": "us-east-1a",
        **NETWORK,
    }
    with pytest.raises(ValueError, match=message):
        CapacityPoolArgs(**(values | overrides))


@pytest.mark.parametrize("hours", [25, 0, 15 * 24, 183 * 24])
def test_capacity_block_durations(hours: int) -> None:
    with pytest.raises(ValueError, match="not a Capacity Block length"):
        CapacityBlockRequest(instance_count=1, duration_hours=hours)
    assert CapacityBlockRequest(instance_count=1, duration_hours=21 * 24).duration_hours == 504


def test_capacity_pool_runs_its_instances_in_the_reservation() -> None:
    """Given a subnet, the pool's instances run in it: a group of exactly the reserved count
    on the template that targets the reservation, behind a no-inbound security group."""
    cap, component = pool(subnet_id=SUBNETS[0])
    assert_provider_would_accept(cap)
    reservation = cap.one("aws:ec2/capacityReservation:CapacityReservation")
    template = cap.one("aws:ec2/launchTemplate:LaunchTemplate")
    group = cap.one("aws:autoscaling/group:Group")
    inputs = group.inputs
    assert (inputs["minSize"], inputs["maxSize"], inputs["desiredCapacity"]) == (2, 2, 2)
    assert inputs["vpcZoneIdentifiers"] == ["subnet-0aaaaaaaaaaaaaaaa"]
    assert inputs["launchTemplate"]["id"] == template.outputs["id"]
    target = template.inputs["capacityReservationSpecification"]["capacityReservationTarget"]
    assert target["capacityReservationId"] == reservation.outputs["id"]
    security_group = cap.one("aws:ec2/securityGroup:SecurityGroup")
    interface = template.inputs["networkInterfaces"][0]
    assert interface["securityGroups"] == [security_group.outputs["id"]]
    assert interface["associatePublicIpAddress"] == "false"
    tags = {t["key"]: t["value"] for t in inputs["tags"]}
    assert tags["workload"] == TAGS.workload and "expected-minutes" not in tags
    assert resolve(component.autoscaling_group_name) == group.outputs["name"]


def test_capacity_pool_without_a_subnet_only_holds_the_capacity() -> None:
    cap, component = pool()
    assert not cap.of_type("aws:autoscaling/group:Group")
    assert component.autoscaling_group_name is None


def test_capacity_pool_consumers_never_fall_back_to_the_default_security_group() -> None:
    """Whatever launches from the pool's template, its group or yours, joins the pool's own
    group (nothing in, HTTPS out) and the extra ones: never the VPC's default group."""
    for overrides in ({}, {"subnet_id": SUBNETS[0]}):
        cap, component = pool(**overrides)
        group = cap.one("aws:ec2/securityGroup:SecurityGroup")
        assert group.inputs["vpcId"] == NETWORK["vpc_id"]
        (interface,) = cap.one("aws:ec2/launchTemplate:LaunchTemplate").inputs["networkInterfaces"]
        assert interface["securityGroups"] == [group.outputs["id"]]
        assert resolve(component.security_group_id) == group.outputs["id"]
        assert not cap.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
        egress = cap.one("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule").inputs
        assert (egress["ipProtocol"], egress["fromPort"], egress["toPort"]) == ("tcp", 443, 443)
    cap, _ = pool(extra_security_group_ids=["sg-0efs0000000000000"])
    own = cap.one("aws:ec2/securityGroup:SecurityGroup").outputs["id"]
    (interface,) = cap.one("aws:ec2/launchTemplate:LaunchTemplate").inputs["networkInterfaces"]
    assert interface["securityGroups"] == [own, "sg-0efs0000000000000"]


def test_capacity_pool_containers_may_reach_imds_when_asked() -> None:
    cap, _ = pool(container_imds_access=True)
    options = cap.one("aws:ec2/launchTemplate:LaunchTemplate").inputs["metadataOptions"]
    assert (options["httpTokens"], options["httpPutResponseHopLimit"]) == ("required", 2)

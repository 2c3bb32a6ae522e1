"""AWS components under Pulumi mocks: what each registers, its key inputs, tags, parents, secure
defaults, values the provider would reject, and argument validation."""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import pytest
from pydantic import ValidationError

from gpufleet.components.aws.ami import DLAMI_PARAMETERS
from gpufleet.components.aws.capacity_pool import (
    CapacityBlockRequest,
    CapacityPool,
    CapacityPoolArgs,
)
from gpufleet.components.aws.placement_cluster import PlacementCluster, PlacementClusterArgs
from gpufleet.components.aws.sagemaker_spot_training import (
    SageMakerSpotTraining,
    SageMakerSpotTrainingArgs,
    TrainingJobSpec,
)
from gpufleet.components.aws.spot_fleet import SpotFleet, SpotFleetArgs
from gpufleet.components.tagging import RequiredTags

from .component_checks import (
    TAGS,
    assert_children_of,
    assert_nothing_deprecated,
    assert_provider_would_accept,
    assert_tagged,
)
from .pulumi_mocks import ACCOUNT, REGION, Capture, capture, resolve

NETWORK = {"vpc_id": "vpc-0123456789abcdef0"}
SUBNETS = ["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"]


def policy(registration: Any) -> dict[str, Any]:
    document = registration.inputs["policy"]
    return json.loads(document) if isinstance(document, str) else document


# --- SpotFleet -----------------------------------------------------------------------------------


def spot_fleet(**overrides: Any) -> tuple[Capture, SpotFleet]:
    values: dict[str, Any] = {
        "tags": TAGS,
        "instance_types": ["g6.xlarge", "g6.12xlarge", "g5.xlarge"],
        "target_gpus": 8,
        "subnet_ids": SUBNETS,
        **NETWORK,
    }
    values.update(overrides)
    args = SpotFleetArgs(**values)
    return capture(lambda: SpotFleet("eval", args))


def test_spot_fleet_registers_its_resources_under_itself() -> None:
    cap, _ = spot_fleet()
    assert cap.types == sorted(
        [
            "gpufleet:aws:SpotFleet",
            "aws:sqs/queue:Queue",
            "aws:sqs/queuePolicy:QueuePolicy",
            "aws:cloudwatch/eventRule:EventRule",
            "aws:cloudwatch/eventTarget:EventTarget",
            "aws:ec2/securityGroup:SecurityGroup",
            "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
            "aws:iam/role:Role",
            "aws:iam/rolePolicy:RolePolicy",
            "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
            "aws:iam/instanceProfile:InstanceProfile",
            "aws:ec2/launchTemplate:LaunchTemplate",
            "aws:autoscaling/group:Group",
        ]
    )
    assert_children_of(cap, "gpufleet:aws:SpotFleet", "eval")
    assert assert_tagged(cap) == 8
    assert assert_provider_would_accept(cap) >= 10
    assert_nothing_deprecated(cap)


def test_spot_fleet_capacity_is_counted_in_gpus() -> None:
    cap, _ = spot_fleet(on_demand_base_gpus=2, max_price_per_gpu_hour=0.6)
    asg = cap.one("aws:autoscaling/group:Group").inputs
    assert asg["desiredCapacityType"] == "units"
    assert asg["desiredCapacity"] == 8 and asg["minSize"] == 0 and asg["maxSize"] == 12
    assert asg["capacityRebalance"] is True
    assert asg["vpcZoneIdentifiers"] == SUBNETS
    assert asg["waitForCapacityTimeout"] == "0"
    policy_ = asg["mixedInstancesPolicy"]
    overrides = {
        o["instanceType"]: o["weightedCapacity"] for o in policy_["launchTemplate"]["overrides"]
    }
    assert overrides == {"g6.xlarge": "1", "g6.12xlarge": "4", "g5.xlarge": "1"}
    distribution = policy_["instancesDistribution"]
    assert distribution["spotAllocationStrategy"] == "price-capacity-optimized"
    assert distribution["onDemandBaseCapacity"] == 2
    assert distribution["onDemandPercentageAboveBaseCapacity"] == 0
    assert distribution["spotMaxPrice"] == "0.6000"
    template = cap.one("aws:ec2/launchTemplate:LaunchTemplate")
    spec = policy_["launchTemplate"]["launchTemplateSpecification"]
    assert spec == {"launchTemplateId": template.outputs["id"], "version": "1"}


def test_spot_fleet_secure_defaults() -> None:
    cap, _ = spot_fleet(user_data="#!/bin/bash\necho hi\n")
    template = cap.one("aws:ec2/launchTemplate:LaunchTemplate").inputs
    assert template["metadataOptions"]["httpTokens"] == "required"
    (root,) = template["blockDeviceMappings"]
    assert root["ebs"]["encrypted"] == "true" and root["ebs"]["volumeType"] == "gp3"
    (interface,) = template["networkInterfaces"]
    assert interface["associatePublicIpAddress"] == "false"
    group = cap.one("aws:ec2/securityGroup:SecurityGroup")
    assert interface["securityGroups"] == [group.outputs["id"]]
    assert base64.b64decode(template["userData"]).decode() == "#!/bin/bash\necho hi\n"
    assert {s["resourceType"] for s in template["tagSpecifications"]} == {
        "instance",
        "volume",
        "network-interface",
    }
    # Nothing comes in: no ingress rule at all; egress is the only rule.
    assert not cap.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
    assert "ingress" not in group.inputs
    trust = json.loads(cap.one("aws:iam/role:Role").inputs["assumeRolePolicy"])
    assert [s["Principal"] for s in trust["Statement"]] == [{"Service": "ec2.amazonaws.com"}]
    queue = cap.one("aws:sqs/queue:Queue")
    assert queue.inputs["sqsManagedSseEnabled"] is True


def test_spot_fleet_instances_may_only_read_their_queue() -> None:
    cap, _ = spot_fleet()
    queue_arn = cap.one("aws:sqs/queue:Queue").outputs["arn"]
    (statement,) = policy(cap.one("aws:iam/rolePolicy:RolePolicy"))["Statement"]
    assert statement["Resource"] == queue_arn
    assert all(action.startswith("sqs:") for action in statement["Action"])
    attachment = cap.one("aws:iam/rolePolicyAttachment:RolePolicyAttachment").inputs
    assert attachment["policyArn"] == "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"
    no_ssm, _ = spot_fleet(ssm_access=False)
    assert not no_ssm.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")


def test_spot_fleet_interruptions_reach_the_queue() -> None:
    cap, fleet = spot_fleet()
    rule = cap.one("aws:cloudwatch/eventRule:EventRule")
    assert json.loads(rule.inputs["eventPattern"]) == {
        "source": ["aws.ec2"],
        "detail-type": [
            "EC2 Spot Instance Interruption Warning",
            "EC2 Instance Rebalance Recommendation",
        ],
    }
    queue = cap.one("aws:sqs/queue:Queue")
    target = cap.one("aws:cloudwatch/eventTarget:EventTarget").inputs
    assert (target["rule"], target["arn"]) == (rule.outputs["name"], queue.outputs["arn"])
    (statement,) = policy(cap.one("aws:sqs/queuePolicy:QueuePolicy"))["Statement"]
    assert statement["Principal"] == {"Service": "events.amazonaws.com"}
    assert statement["Condition"] == {"ArnEquals": {"aws:SourceArn": rule.outputs["arn"]}}
    assert resolve(fleet.interruption_queue_url) == (
        f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/eval-interruptions"
    )
    assert resolve(fleet.launch_template_id).startswith("lt-")


def test_spot_fleet_kms_key_encrypts_queue_and_volumes() -> None:
    key = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    cap, _ = spot_fleet(kms_key_id=key)
    queue = cap.one("aws:sqs/queue:Queue").inputs
    assert queue["kmsMasterKeyId"] == key and "sqsManagedSseEnabled" not in queue
    template = cap.one("aws:ec2/launchTemplate:LaunchTemplate").inputs
    assert template["blockDeviceMappings"][0]["ebs"]["kmsKeyId"] == key


@pytest.mark.parametrize(
    ("instance_types", "parameter"),
    [
        (["g6.xlarge"], DLAMI_PARAMETERS[("cuda", "x86_64")]),
        (["g5g.xlarge", "g5g.2xlarge"], DLAMI_PARAMETERS[("cuda", "arm64")]),
        (["inf2.xlarge"], DLAMI_PARAMETERS[("neuron", "x86_64")]),
    ],
)
def test_spot_fleet_boots_the_matching_deep_learning_ami(
    instance_types: list[str], parameter: str
) -> None:
    cap, _ = spot_fleet(instance_types=instance_types)
    assert cap.invokes == [("aws:ssm/getParameter:getParameter", {"name": parameter})]
    image = cap.one("aws:ec2/launchTemplate:LaunchTemplate").inputs["imageId"]
    assert image.startswith("ami-")


def test_spot_fleet_given_ami_skips_the_lookup() -> None:
    cap, _ = spot_fleet(ami_id="ami-0123456789abcdef0")
    assert cap.invokes == []
    assert cap.one("aws:ec2/launchTemplate:LaunchTemplate").inputs["imageId"] == (
        "ami-0123456789abcdef0"
    )


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"instance_types": ["m5.large"]}, "instance_types", "not AWS GPU instance types"),
        ({"instance_types": ["g6.xlarge", "g6.xlarge"]}, "instance_types", "twice"),
        ({"instance_types": []}, "instance_types", "at least 1"),
        ({"target_gpus": 0}, "target_gpus", "greater than or equal to 1"),
        ({"on_demand_base_gpus": 9}, "", "on_demand_base_gpus (9) exceeds target_gpus (8)"),
        ({"max_price_per_gpu_hour": 0}, "max_price_per_gpu_hour", "greater than 0"),
        ({"subnet_ids": []}, "subnet_ids", "at least 1"),
        ({"subnet_ids": [""]}, "subnet_ids", "non-empty string or a pulumi Output"),
        ({"ami_id": "ubuntu"}, "ami_id", "is not an AMI id"),
        ({"instance_types": ["g6.xlarge", "g5g.xlarge"]}, "", "different images"),
        (
            {"instance_types": ["g6.xlarge", "g5g.xlarge"], "ami_id": "ami-0123456789abcdef0"},
            "",
            "mix arm64 and x86_64",
        ),
        ({"instance_types": ["g4ad.xlarge"]}, "", "no public Deep Learning AMI for Radeon"),
        ({"root_volume_gib": 10}, "root_volume_gib", "greater than or equal to 30"),
        ({"spot": True}, "spot", "Extra inputs are not permitted"),
    ],
)
def test_spot_fleet_validation(overrides: dict[str, Any], field: str, message: str) -> None:
    values: dict[str, Any] = {
        "tags": TAGS,
        "instance_types": ["g6.xlarge"],
        "target_gpus": 8,
        "subnet_ids": SUBNETS,
        **NETWORK,
    }
    with pytest.raises(ValueError, match=re.escape(message)) as caught:
        SpotFleetArgs(**(values | overrides))
    assert isinstance(caught.value, ValidationError)
    assert field in str(caught.value)


def test_required_tags_cannot_be_overridden() -> None:
    with pytest.raises(ValueError, match="extra tags may not set owner"):
        RequiredTags(
            project="p",
            owner="o",
            cost_center="c",
            environment="e",
            workload="w",
            extra={"owner": "someone-else"},
        )
    with pytest.raises(ValueError, match="project"):
        RequiredTags(project="", owner="o", cost_center="c", environment="e", workload="w")


# --- PlacementCluster ---------------------------------------------------------------------------


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


# --- CapacityPool -------------------------------------------------------------------------------


def pool(**overrides: Any) -> tuple[Capture, CapacityPool]:
    values: dict[str, Any] = {
        "tags": TAGS,
        "instance_type": "p5.48xlarge",
        "instance_count": 2,
        "availability_zone": "us-east-1a",
    }
    values.update(overrides)
    args = CapacityPoolArgs(**values)
    return capture(lambda: CapacityPool("reserved", args))


def test_capacity_pool_reservation_is_targeted_and_protected() -> None:
    cap, component = pool(end_date="2027-06-30T00:00:00Z")
    assert_children_of(cap, "gpufleet:aws:CapacityPool", "reserved")
    assert assert_tagged(cap) == 4
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
    assert assert_tagged(cap) == 5


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
    ],
)
def test_capacity_pool_validation(overrides: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {
        "tags": TAGS,
        "instance_type": "p5.48xlarge",
        "instance_count": 1,
        "availability_zone": "us-east-1a",
    }
    with pytest.raises(ValueError, match=message):
        CapacityPoolArgs(**(values | overrides))


@pytest.mark.parametrize("hours", [25, 0, 15 * 24, 183 * 24])
def test_capacity_block_durations(hours: int) -> None:
    with pytest.raises(ValueError, match="not a Capacity Block length"):
        CapacityBlockRequest(instance_count=1, duration_hours=hours)
    assert CapacityBlockRequest(instance_count=1, duration_hours=21 * 24).duration_hours == 504


# --- SageMakerSpotTraining -----------------------------------------------------------------------

IMAGE = "123456789012.dkr.ecr.us-west-2.amazonaws.com/ml/ranker:2026-11"


def sagemaker(**overrides: Any) -> tuple[Capture, SageMakerSpotTraining]:
    values: dict[str, Any] = {
        "tags": TAGS,
        "instance_type": "ml.g5.12xlarge",
        "image_uri": IMAGE,
        "max_run_seconds": 8 * 3600,
    }
    values.update(overrides)
    args = SageMakerSpotTrainingArgs(**values)
    return capture(lambda: SageMakerSpotTraining("ranker", args))


def test_sagemaker_checkpoint_bucket_is_private_encrypted_versioned_and_retained() -> None:
    cap, component = sagemaker()
    assert_children_of(cap, "gpufleet:aws:SageMakerSpotTraining", "ranker")
    assert assert_tagged(cap) == 2
    assert assert_provider_would_accept(cap) >= 4
    assert_nothing_deprecated(cap)
    bucket = cap.one("aws:s3/bucket:Bucket")
    assert bucket.retain_on_delete is True
    assert bucket.inputs["bucketPrefix"] == "acme-ml-trainer-ckpt-"
    assert bucket.inputs["forceDestroy"] is False
    name = bucket.outputs["bucket"]
    access = cap.one("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock").inputs
    assert access == {
        "bucket": name,
        "blockPublicAcls": True,
        "blockPublicPolicy": True,
        "ignorePublicAcls": True,
        "restrictPublicBuckets": True,
    }
    ownership = cap.one("aws:s3/bucketOwnershipControls:BucketOwnershipControls").inputs
    assert ownership["rule"] == {"objectOwnership": "BucketOwnerEnforced"}
    sse = cap.one(
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
    ).inputs
    assert sse["rules"][0]["applyServerSideEncryptionByDefault"] == {"sseAlgorithm": "AES256"}
    versioning = cap.one("aws:s3/bucketVersioning:BucketVersioning").inputs
    assert versioning["versioningConfiguration"] == {"status": "Enabled"}
    (rule,) = cap.one("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration").inputs[
        "rules"
    ]
    assert rule["noncurrentVersionExpiration"] == {"noncurrentDays": 30}
    (deny,) = policy(cap.one("aws:s3/bucketPolicy:BucketPolicy"))["Statement"]
    assert deny["Effect"] == "Deny" and deny["Condition"] == {
        "Bool": {"aws:SecureTransport": "false"}
    }
    assert resolve(component.checkpoint_s3_uri) == f"s3://{name}/checkpoints/"


def test_sagemaker_role_reaches_only_its_bucket_image_and_logs() -> None:
    cap, _ = sagemaker()
    bucket_arn = cap.one("aws:s3/bucket:Bucket").outputs["arn"]
    trust = json.loads(cap.one("aws:iam/role:Role").inputs["assumeRolePolicy"])
    assert [s["Principal"] for s in trust["Statement"]] == [{"Service": "sagemaker.amazonaws.com"}]
    statements = {
        s["Sid"]: s for s in policy(cap.one("aws:iam/rolePolicy:RolePolicy"))["Statement"]
    }
    assert set(statements) == {
        "CheckpointBucket",
        "CheckpointObjects",
        "PullTrainingImage",
        "EcrLogin",
        "TrainingLogs",
    }
    assert statements["CheckpointBucket"]["Resource"] == bucket_arn
    assert statements["CheckpointObjects"]["Resource"] == f"{bucket_arn}/*"
    assert statements["PullTrainingImage"]["Resource"] == (
        "arn:aws:ecr:us-west-2:123456789012:repository/ml/ranker"
    )
    logs = f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:/aws/sagemaker/TrainingJobs"
    assert statements["TrainingLogs"]["Resource"] == [logs, f"{logs}:log-stream:*"]
    wildcard = [sid for sid, s in statements.items() if s["Resource"] == "*"]
    assert wildcard == ["EcrLogin"]


def test_sagemaker_estimator_kwargs() -> None:
    cap, component = sagemaker(instance_count=2)
    role_arn = cap.one("aws:iam/role:Role").outputs["arn"]
    bucket = cap.one("aws:s3/bucket:Bucket").outputs["bucket"]
    assert resolve(component.estimator_kwargs) == {
        "use_spot_instances": True,
        "max_run": 8 * 3600,
        "max_wait": 16 * 3600,
        "checkpoint_s3_uri": f"s3://{bucket}/checkpoints/",
        "checkpoint_local_path": "/opt/ml/checkpoints",
        "role": role_arn,
        "instance_type": "ml.g5.12xlarge",
        "instance_count": 2,
    }
    assert not cap.of_type("aws:sagemaker/trainingJob:TrainingJob")
    assert component.training_job_arn is None


def test_sagemaker_training_job_when_asked() -> None:
    job = TrainingJobSpec(job_name="ranker-2026-11-22", hyperparameters={"epochs": "3"})
    cap, component = sagemaker(
        instance_type="g5.12xlarge", training_job=job, max_wait_seconds=9 * 3600
    )
    training = cap.one("aws:sagemaker/trainingJob:TrainingJob")
    inputs = training.inputs
    assert inputs["enableManagedSpotTraining"] is True
    assert inputs["checkpointConfig"]["localPath"] == "/opt/ml/checkpoints"
    assert inputs["stoppingCondition"] == {
        "maxRuntimeInSeconds": 8 * 3600,
        "maxWaitTimeInSeconds": 9 * 3600,
    }
    assert inputs["resourceConfig"]["instanceType"] == "ml.g5.12xlarge"
    assert inputs["algorithmSpecification"]["trainingImage"] == IMAGE
    assert inputs["hyperParameters"] == {"epochs": "3"}
    access = cap.one("aws:iam/rolePolicy:RolePolicy")
    assert access.urn in training.dependencies
    assert assert_tagged(cap) == 3
    assert resolve(component.training_job_arn).endswith("training-job/ranker-2026-11-22")


def test_sagemaker_kms_and_vpc() -> None:
    key = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    cap, _ = sagemaker(
        kms_key_arn=key, subnet_ids=SUBNETS, security_group_ids=["sg-0123456789abcdef0"]
    )
    sse = cap.one(
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
    ).inputs["rules"][0]
    assert sse["applyServerSideEncryptionByDefault"] == {
        "sseAlgorithm": "aws:kms",
        "kmsMasterKeyId": key,
    }
    assert sse["bucketKeyEnabled"] is True
    statements = {
        s["Sid"]: s for s in policy(cap.one("aws:iam/rolePolicy:RolePolicy"))["Statement"]
    }
    assert statements["EncryptionKey"]["Resource"] == key
    assert "JobNetworkInterfaces" in statements


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            {"max_run_seconds": 7200, "max_wait_seconds": 3600},
            r"max_wait_seconds \(3600\) must be at least max_run_seconds \(7200\)",
        ),
        ({"max_run_seconds": 29 * 24 * 3600}, "less than or equal to 2419200"),
        ({"instance_type": "ml.m5.xlarge"}, "not a GPU instance type SageMaker trains on"),
        ({"instance_type": "gr6.4xlarge"}, "not a GPU instance type SageMaker trains on"),
        ({"image_uri": "docker.io/library/pytorch:latest"}, "not an ECR image URI"),
        ({"subnet_ids": SUBNETS}, "needs both subnet_ids and security_group_ids"),
        ({"instance_count": 0}, "greater than or equal to 1"),
    ],
)
def test_sagemaker_validation(overrides: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {"tags": TAGS, "instance_type": "ml.p4d.24xlarge", "image_uri": IMAGE}
    with pytest.raises(ValueError, match=message):
        SageMakerSpotTrainingArgs(**(values | overrides))
    with pytest.raises(ValueError, match="not a training job name"):
        TrainingJobSpec(job_name="has_underscores")

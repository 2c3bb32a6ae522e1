"""SpotFleet under the offline engine: its resources, GPU-weighted capacity, secure defaults,
interruption handling, AMI choice, validation."""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import pytest
from pydantic import ValidationError

from gpufleet.components.aws.ami import DLAMI_PARAMETERS
from gpufleet.components.aws.spot_fleet import SpotFleet, SpotFleetArgs
from gpufleet.components.scaling import Scaling, WeeklyRun
from tests.components.aws.site import NETWORK, SUBNETS
from tests.components.component_checks import (
    TAGS,
    assert_children_of,
    assert_nothing_deprecated,
    assert_provider_would_accept,
    assert_tagged,
    policy_document,
)
from tests.components.pulumi_mocks import ACCOUNT, REGION, Capture, capture, resolve


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
    # Max size in GPUs too: AWS itself lets a weighted group overshoot it by one instance.
    assert asg["desiredCapacity"] == 8 and asg["minSize"] == 0 and asg["maxSize"] == 8
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
    # CKV_AWS_341: a metadata token reaches the instance's own processes only.
    assert template["metadataOptions"]["httpPutResponseHopLimit"] == 1
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
    # Nothing comes in: no ingress rule at all; egress is the only rule, and only HTTPS
    # (CKV_AWS_382: never all traffic to 0.0.0.0/0).
    assert not cap.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
    assert "ingress" not in group.inputs and "egress" not in group.inputs
    egress = cap.one("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule").inputs
    assert (egress["ipProtocol"], egress["fromPort"], egress["toPort"]) == ("tcp", 443, 443)
    assert egress["cidrIpv4"] == "0.0.0.0/0" and egress["securityGroupId"] == group.outputs["id"]
    trust = json.loads(cap.one("aws:iam/role:Role").inputs["assumeRolePolicy"])
    assert [s["Principal"] for s in trust["Statement"]] == [{"Service": "ec2.amazonaws.com"}]
    queue = cap.one("aws:sqs/queue:Queue")
    assert queue.inputs["sqsManagedSseEnabled"] is True


def test_spot_fleet_instances_may_only_read_their_queue() -> None:
    cap, _ = spot_fleet()
    queue_arn = cap.one("aws:sqs/queue:Queue").outputs["arn"]
    (statement,) = policy_document(cap.one("aws:iam/rolePolicy:RolePolicy"))["Statement"]
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
    (statement,) = policy_document(cap.one("aws:sqs/queuePolicy:QueuePolicy"))["Statement"]
    assert statement["Principal"] == {"Service": "events.amazonaws.com"}
    assert statement["Condition"] == {"ArnEquals": {"aws:SourceArn": rule.outputs["arn"]}}
    assert resolve(fleet.interruption_queue_url) == (
        f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/eval-interruptions"
    )
    assert resolve(fleet.launch_template_id).startswith("lt-")


def test_spot_fleet_containers_may_reach_imds_and_further_groups_when_asked() -> None:
    cap, _ = spot_fleet(
        container_imds_access=True, extra_security_group_ids=["sg-0efs0000000000000"]
    )
    template = cap.one("aws:ec2/launchTemplate:LaunchTemplate").inputs
    assert template["metadataOptions"]["httpPutResponseHopLimit"] == 2
    assert template["metadataOptions"]["httpTokens"] == "required"
    (interface,) = template["networkInterfaces"]
    own = cap.one("aws:ec2/securityGroup:SecurityGroup").outputs["id"]
    assert interface["securityGroups"] == [own, "sg-0efs0000000000000"]


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


def test_a_fleet_on_request_starts_at_zero_and_keeps_the_size_a_run_sets() -> None:
    scaling = Scaling(mode="on_request", expected_hours=150)
    cap, _ = spot_fleet(scaling=scaling)
    asg = cap.one("aws:autoscaling/group:Group")
    assert (asg.inputs["desiredCapacity"], asg.inputs["minSize"], asg.inputs["maxSize"]) == (
        0,
        0,
        8,
    )
    assert asg.ignore_changes == ["desiredCapacity"]
    tags = {t["key"]: t["value"] for t in asg.inputs["tags"]}
    assert tags["expected-minutes"] == "9000"
    assert not cap.of_type("aws:autoscaling/schedule:Schedule")
    assert not cap.of_type("aws:autoscaling/policy:Policy")


def test_a_scheduled_fleet_runs_its_windows_in_their_time_zone() -> None:
    # Weekdays 08:00-20:00 and Sunday 22:00 to Monday 02:00, in Berlin.
    runs = [WeeklyRun(start_minute=day * 1440 + 8 * 60, minutes=12 * 60) for day in range(5)] + [
        WeeklyRun(start_minute=6 * 1440 + 22 * 60, minutes=4 * 60)
    ]
    cap, _ = spot_fleet(scaling=Scaling(mode="schedule", time_zone="Europe/Berlin", runs=runs))
    actions = {
        s.inputs["scheduledActionName"]: s.inputs
        for s in cap.of_type("aws:autoscaling/schedule:Schedule")
    }
    assert len(actions) == 12
    monday = actions["eval-run-0-start"]
    assert (monday["recurrence"], monday["desiredCapacity"], monday["timeZone"]) == (
        "0 8 * * 1",
        8,
        "Europe/Berlin",
    )
    assert (monday["minSize"], monday["maxSize"]) == (-1, -1)
    assert actions["eval-run-0-end"]["recurrence"] == "0 20 * * 1"
    assert actions["eval-run-0-end"]["desiredCapacity"] == 0
    # Across midnight and the week: starts Sunday 22:00, ends Monday 02:00.
    assert actions["eval-run-5-start"]["recurrence"] == "0 22 * * 0"
    assert actions["eval-run-5-end"]["recurrence"] == "0 2 * * 1"
    tags = {t["key"]: t["value"] for t in cap.one("aws:autoscaling/group:Group").inputs["tags"]}
    hours = 730 * (5 * 12 + 4) / 168
    assert tags["expected-minutes"] == str(round(hours * 60))


def test_a_fleet_that_scales_has_no_on_demand_base() -> None:
    with pytest.raises(ValidationError, match="on_demand_base_gpus applies to a fixed group"):
        spot_fleet(on_demand_base_gpus=2, scaling=Scaling(mode="on_request", expected_hours=1))
    cap, _ = spot_fleet(on_demand_percent=100, scaling=Scaling(mode="on_request", expected_hours=1))
    distribution = cap.one("aws:autoscaling/group:Group").inputs["mixedInstancesPolicy"][
        "instancesDistribution"
    ]
    assert distribution["onDemandPercentageAboveBaseCapacity"] == 100


def test_a_burst_on_load_steps_on_its_bases_cpu() -> None:
    """From zero, one instance at a time: the base's alarms drive it (its own load does not
    exist at zero)."""
    scaling = Scaling(mode="on_load", expected_hours=120)
    cap, _ = spot_fleet(scaling=scaling, base_group_name="serving-base-asg")
    assert_provider_would_accept(cap)
    asg = cap.one("aws:autoscaling/group:Group")
    assert asg.inputs["desiredCapacity"] == 0 and asg.ignore_changes == ["desiredCapacity"]
    assert {t["key"]: t["value"] for t in asg.inputs["tags"]}["expected-minutes"] == "7200"
    policies = {p.name: p for p in cap.of_type("aws:autoscaling/policy:Policy")}
    alarms = {a.name: a for a in cap.of_type("aws:cloudwatch/metricAlarm:MetricAlarm")}
    assert set(policies) == set(alarms) == {"eval-base-busy", "eval-base-idle"}
    smallest = 1  # g6.xlarge, g5.xlarge: one instance, in the group's GPU units
    busy, idle = policies["eval-base-busy"].inputs, policies["eval-base-idle"].inputs
    assert busy["estimatedInstanceWarmup"] == idle["estimatedInstanceWarmup"] == 600
    assert (
        alarms["eval-base-busy"].inputs["evaluationPeriods"],
        alarms["eval-base-idle"].inputs["evaluationPeriods"],
    ) == (1, 3)
    assert busy["stepAdjustments"] == [
        {"scalingAdjustment": smallest, "metricIntervalLowerBound": "0"}
    ]
    assert idle["stepAdjustments"] == [
        {"scalingAdjustment": -smallest, "metricIntervalUpperBound": "0"}
    ]
    for name, comparison, threshold in (
        ("eval-base-busy", "GreaterThanThreshold", 70.0),
        ("eval-base-idle", "LessThanThreshold", 30.0),
    ):
        alarm = alarms[name].inputs
        assert alarm["dimensions"] == {"AutoScalingGroupName": "serving-base-asg"}
        assert (alarm["metricName"], alarm["namespace"]) == ("CPUUtilization", "AWS/EC2")
        assert (alarm["comparisonOperator"], alarm["threshold"]) == (comparison, threshold)
        # EC2's basic monitoring reports every 5 minutes: one period each, not empty minutes.
        assert alarm["period"] == 300
        assert alarm["alarmActions"] == [policies[name].outputs["arn"]]


@pytest.mark.parametrize(
    "overrides",
    [
        {"scaling": Scaling(mode="on_load", expected_hours=120)},
        {"base_group_name": "serving-base-asg"},
    ],
)
def test_on_load_and_a_base_group_go_together(overrides: dict[str, Any]) -> None:
    with pytest.raises(ValidationError, match="on_load and base_group_name go together"):
        spot_fleet(**overrides)

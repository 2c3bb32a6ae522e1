"""Every policy of the pack, through the servicer the pack serves (policies.testing): resources
that must pass and resources that must fail, hand-written as users write them, unknowns
included."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gpufleet.checks.policy_config import PolicyConfigError
from gpufleet.policies.testing import UNKNOWN, PolicyHarness, StackInput

ROOT = Path(__file__).resolve().parent.parent
TAGS = {"project": "p", "owner": "o", "cost-center": "c", "environment": "dev"}
LT = "aws:ec2/launchTemplate:LaunchTemplate"
ASG = "aws:autoscaling/group:Group"
GCP_TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
MIG = "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager"
SECURE_LT = {"metadataOptions": {"httpTokens": "required"}, "tags": TAGS}


@pytest.fixture(scope="module")
def dev() -> PolicyHarness:
    import json

    config = json.loads((ROOT / "policies" / "config" / "dev.json").read_text())
    return PolicyHarness(config=config)


def policies_of(violations) -> list[tuple[str, str]]:
    return sorted((v.policy, v.level) for v in violations)


def test_taggable_table_matches_the_installed_sdks() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "generate_taggable_types.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_taggable_table_knows_tags_labels_and_tag_lists() -> None:
    from gpufleet.policies.taggable import tag_property

    assert tag_property("aws:ec2/instance:Instance").name == "tags"
    assert tag_property(ASG).shape == "list"
    assert tag_property(GCP_TEMPLATE).name == "labels"
    assert tag_property("azure-native:compute:VirtualMachineScaleSet").shape == "map"
    assert tag_property("gcp:compute/reservation:Reservation") is None  # takes no labels
    assert tag_property("aws:s3/bucketPolicy:BucketPolicy") is None


# --- required-tags ------------------------------------------------------------------------


def test_required_tags_missing_is_mandatory(dev: PolicyHarness) -> None:
    found = dev.analyze(LT, {**SECURE_LT, "tags": {"project": "p"}})
    assert policies_of(found) == [("required-tags", "mandatory")]
    assert "owner, cost-center, environment" in found[0].message


@pytest.mark.parametrize(
    ("type_", "props", "provider"),
    [
        (LT, SECURE_LT, None),
        (ASG, {"maxSize": 0, "tags": [{"key": k, "value": v} for k, v in TAGS.items()]}, None),
        (GCP_TEMPLATE, {"machineType": "e2-small", "labels": {**TAGS, "cost-center": "c"}}, None),
        # Tags from the provider's defaultTags count (objects reach providers as JSON text).
        (LT, {"metadataOptions": {"httpTokens": "required"}}, {"defaultTags": '{"tags": %s}'}),
        ("aws:s3/bucketPolicy:BucketPolicy", {"policy": "{}"}, None),  # not taggable
    ],
)
def test_required_tags_pass(dev: PolicyHarness, type_: str, props: dict, provider) -> None:
    import json

    if provider is not None:
        provider = {"defaultTags": provider["defaultTags"] % json.dumps(TAGS)}
    assert dev.analyze(type_, props, provider=provider) == []


def test_required_tags_gcp_missing_label(dev: PolicyHarness) -> None:
    labels = {k: v for k, v in TAGS.items() if k != "owner"}
    found = dev.analyze(GCP_TEMPLATE, {"machineType": "e2-small", "labels": labels})
    assert [v.message for v in found] == ["labels missing: owner"]


def test_required_tags_unknown_values_pass_with_an_advisory(dev: PolicyHarness) -> None:
    found = dev.analyze(LT, {**SECURE_LT, "tags": {**TAGS, "owner": UNKNOWN}})
    assert policies_of(found) == [("required-tags", "advisory")]
    assert "tags.owner can't be known during preview" in found[0].message


def test_required_tags_unrelated_unknown_does_not_downgrade(dev: PolicyHarness) -> None:
    found = dev.analyze(LT, {**SECURE_LT, "imageId": UNKNOWN, "tags": {"project": "p"}})
    assert policies_of(found) == [("required-tags", "mandatory")]


def test_required_tags_unknown_map_cannot_decide(dev: PolicyHarness) -> None:
    found = dev.analyze(LT, {**SECURE_LT, "tags": UNKNOWN})
    assert policies_of(found) == [("required-tags", "advisory")]


def test_required_tags_empty_value_fails(dev: PolicyHarness) -> None:
    found = dev.analyze(LT, {**SECURE_LT, "tags": {**TAGS, "owner": ""}})
    assert [v.message for v in found] == ["tags with empty values: owner"]


def test_required_tags_keys_from_config() -> None:
    harness = PolicyHarness(config={"required-tags": {"keys": ["team"]}})
    assert harness.analyze(LT, {**SECURE_LT, "tags": {"team": "x"}}) == []
    assert policies_of(harness.analyze(LT, SECURE_LT)) == [("required-tags", "mandatory")]


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        ({"required-tags": {"keys": "owner"}}, "required-tags.keys: 'owner' is not of type"),
        ({"gpu-budget": {"monthlyBudgetUsd": -5}}, "gpu-budget.monthlyBudgetUsd: -5"),
        ({"gpu-fleet-size": {"maxGpuPerFleet": 4}}, "Additional properties are not allowed"),
        ({"required-tag": "mandatory"}, "required-tag: no such policy"),
        ({"all": "strict"}, "enforcement level 'strict' is not one of"),
        (
            {"required-tags": {"suppressions": [{"resource": "x", "reason": "no"}]}},
            "suppressions.0.reason: 'no' is too short",
        ),
    ],
)
def test_config_violating_a_schema_is_an_error(config: dict, problem: str) -> None:
    with pytest.raises(PolicyConfigError) as exc:
        PolicyHarness(config=config)
    assert any(problem in p for p in exc.value.problems), exc.value.problems


def test_suppression_with_reason_marks_the_resource_not_applicable() -> None:
    reason = "legacy template, replaced in Q1 (JIRA-42)"
    harness = PolicyHarness(
        config={"required-tags": {"suppressions": [{"resource": "old-*", "reason": reason}]}}
    )
    assert harness.analyze(LT, {**SECURE_LT, "tags": {}}, name="old-template") == []
    assert harness.not_applicable(LT, {**SECURE_LT, "tags": {}}, name="old-template") == [
        f"required-tags: suppressed: {reason}"
    ]
    assert harness.analyze(LT, {**SECURE_LT, "tags": {}}, name="new-template") != []


# --- GPU size -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("type_", "props"),
    [
        (LT, {**SECURE_LT, "instanceType": "p5.48xlarge"}),
        ("aws:ec2/instance:Instance", {**SECURE_LT, "instanceType": "p4d.24xlarge"}),
        (
            "aws:sagemaker/trainingJob:TrainingJob",
            {"tags": TAGS, "resourceConfig": {"instanceType": "ml.p4d.24xlarge"}},
        ),
        (
            ASG,
            {
                "maxSize": 0,
                "tags": [{"key": k, "value": v} for k, v in TAGS.items()],
                "mixedInstancesPolicy": {
                    "launchTemplate": {"overrides": [{"instanceType": "p5.48xlarge"}]}
                },
            },
        ),
        (GCP_TEMPLATE, {"labels": TAGS, "machineType": "a3-highgpu-8g"}),
        (
            "gcp:compute/instance:Instance",
            {
                "labels": TAGS,
                "machineType": "n1-standard-32",
                "guestAccelerators": [{"type": "nvidia-tesla-v100", "count": 8}],
            },
        ),
        (
            "azure-native:compute:VirtualMachineScaleSet",
            {"tags": TAGS, "sku": {"name": "Standard_ND96asr_v4", "capacity": 0}},
        ),
    ],
)
def test_gpu_instance_size_over_the_limit_fails(type_: str, props: dict) -> None:
    harness = PolicyHarness(config={"gpu-instance-size": {"maxGpusPerInstance": 4}})
    found = [v for v in harness.analyze(type_, props) if v.policy == "gpu-instance-size"]
    assert len(found) == 1 and "at most 4 GPUs per instance" in found[0].message


def test_gpu_instance_size_allowed_types() -> None:
    harness = PolicyHarness(config={"gpu-instance-size": {"allowedGpuTypes": ["l4", "T4"]}})
    assert harness.analyze(GCP_TEMPLATE, {"labels": TAGS, "machineType": "g2-standard-8"}) == []
    found = harness.analyze(GCP_TEMPLATE, {"labels": TAGS, "machineType": "a2-highgpu-1g"})
    assert [v.message for v in found] == ["a2-highgpu-1g carries A100; allowed here: L4, T4"]


def test_non_gpu_machines_are_not_gpu_resources(dev: PolicyHarness) -> None:
    assert dev.analyze(LT, {**SECURE_LT, "instanceType": "m7i.large"}) == []


def _asg(max_size: float, lt_urn: str, **extra) -> StackInput:
    return StackInput(
        ASG,
        {"maxSize": max_size, "launchTemplate": {"id": UNKNOWN}, **extra},
        "group",
        property_dependencies={"launchTemplate": [lt_urn]},
    )


def test_gpu_fleet_size_resolves_the_launch_template_in_a_preview() -> None:
    harness = PolicyHarness(config={"gpu-fleet-size": {"maxGpusPerFleet": 16}}, dry_run=True)
    template = StackInput(LT, {**SECURE_LT, "instanceType": "g5.12xlarge"}, "tpl")
    small = harness.analyze_stack([template, _asg(4, template.urn("dev"))])
    assert [v for v in small if v.policy == "gpu-fleet-size"] == []
    big = harness.analyze_stack([template, _asg(5, template.urn("dev"))])
    found = [v for v in big if v.policy == "gpu-fleet-size"]
    assert len(found) == 1 and "can hold 20 GPUs (5 x g5.12xlarge" in found[0].message
    assert found[0].urn == _asg(5, "").urn("dev")


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


def test_undetermined_gpu_size_is_reported_not_ignored() -> None:
    harness = PolicyHarness(dry_run=True)
    resources = [
        StackInput(LT, {**SECURE_LT, "instanceType": UNKNOWN}, "unknown-type"),
        StackInput(LT, {**SECURE_LT, "instanceType": "p9.96xlarge"}, "future-type"),
        StackInput(LT, {**SECURE_LT, "instanceType": "m7i.large"}, "cpu-only"),
    ]
    found = [v for v in harness.analyze_stack(resources) if v.policy == "gpu-size-undetermined"]
    assert {v.urn.rsplit("::", 1)[1] for v in found} == {"unknown-type", "future-type"}
    assert {v.level for v in found} == {"advisory"}


# --- budget ------------------------------------------------------------------------------


def test_budget_counts_spot_and_on_demand_prices() -> None:
    from gpufleet.policies.footprints import read_gpu_footprint
    from gpufleet.policies.rules.gpu_budget import monthly_cost

    def cost(market: str) -> float:
        footprint = read_gpu_footprint(
            "azure-native:compute:VirtualMachineScaleSet",
            {
                "location": "eastus",
                "sku": {"name": "Standard_NC24ads_A100_v4", "capacity": 2},
                "virtualMachineProfile": {"priority": market},
            },
        )
        assert footprint is not None
        value, why = monthly_cost(footprint)
        assert value is not None, why
        return value

    assert 0 < cost("Spot") < cost("Regular")


def test_budget_over_and_under() -> None:
    template = StackInput(LT, {**SECURE_LT, "instanceType": "p5.48xlarge"}, "tpl")
    group = _asg(2, template.urn("dev"))
    over = PolicyHarness(config={"gpu-budget": {"monthlyBudgetUsd": 1000}})
    found = [v for v in over.analyze_stack([template, group]) if v.policy == "gpu-budget"]
    assert len(found) == 1 and "exceeds the budget of $1,000/month" in found[0].message
    under = PolicyHarness(config={"gpu-budget": {"monthlyBudgetUsd": 10_000_000}})
    assert [v for v in under.analyze_stack([template, group]) if v.policy == "gpu-budget"] == []


# --- cost hygiene ------------------------------------------------------------------------


def test_training_on_spot(dev: PolicyHarness) -> None:
    training_tags = [{"key": "workload-kind", "value": "training"}]
    template = StackInput(LT, {**SECURE_LT, "instanceType": "g5.xlarge"}, "tpl")
    on_demand = _asg(1, template.urn("dev"), tags=training_tags)
    found = [v for v in dev.analyze_stack([template, on_demand]) if v.policy == "training-on-spot"]
    assert len(found) == 1
    spot_mix = {
        "mixedInstancesPolicy": {
            "instancesDistribution": {"onDemandPercentageAboveBaseCapacity": 0},
            "launchTemplate": {"overrides": [{"instanceType": "g5.xlarge"}]},
        }
    }
    spot = _asg(1, template.urn("dev"), tags=training_tags, **spot_mix)
    assert [v for v in dev.analyze_stack([template, spot]) if v.policy == "training-on-spot"] == []
    serving = _asg(1, template.urn("dev"))
    assert [
        v for v in dev.analyze_stack([template, serving]) if v.policy == "training-on-spot"
    ] == []


JOB = "aws:sagemaker/trainingJob:TrainingJob"
GOOD_JOB = {
    "tags": TAGS,
    "enableManagedSpotTraining": True,
    "checkpointConfig": {"s3Uri": "s3://b/ckpt"},
    "stoppingCondition": {"maxRuntimeInSeconds": 3600, "maxWaitTimeInSeconds": 7200},
    "resourceConfig": {"instanceType": "ml.g5.xlarge", "instanceCount": 1},
}


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({}, []),
        ({"checkpointConfig": None}, ["without checkpointConfig.s3Uri"]),
        ({"stoppingCondition": {"maxRuntimeInSeconds": 3600}}, ["needs stoppingCondition"]),
        (
            {"stoppingCondition": {"maxRuntimeInSeconds": 7200, "maxWaitTimeInSeconds": 3600}},
            ["is less than maxRuntimeInSeconds"],
        ),
        ({"checkpointConfig": {"s3Uri": UNKNOWN}}, []),  # set, value known after deploy
    ],
)
def test_sagemaker_spot_checkpointing(dev: PolicyHarness, change: dict, expected: list) -> None:
    props = {k: v for k, v in {**GOOD_JOB, **change}.items() if v is not None}
    found = [v for v in dev.analyze(JOB, props) if v.policy == "sagemaker-spot-checkpointing"]
    assert len(found) == len(expected)
    assert all(e in v.message for e, v in zip(expected, found, strict=True))


@pytest.mark.parametrize(
    ("type_", "props", "fails"),
    [
        ("aws:ec2/capacityReservation:CapacityReservation", {"instanceType": "g5.xlarge"}, True),
        (
            "aws:ec2/capacityReservation:CapacityReservation",
            {
                "instanceType": "g5.xlarge",
                "endDateType": "limited",
                "endDate": "2027-01-01T00:00:00Z",
            },
            False,
        ),
        ("gcp:compute/reservation:Reservation", {"zone": "us-east4-a"}, True),
        ("gcp:compute/reservation:Reservation", {"deleteAtTime": "2027-01-01T00:00:00Z"}, False),
        (
            "azure-native:compute:CapacityReservation",
            {"sku": {"name": "Standard_NC4as_T4_v3"}},
            True,
        ),
    ],
)
def test_reservation_end_date(dev: PolicyHarness, type_: str, props: dict, fails: bool) -> None:
    found = [
        v for v in dev.analyze(type_, {**props, "tags": TAGS}) if v.policy == "reservation-end-date"
    ]
    assert bool(found) is fails


def test_reservation_end_date_disabled_in_prod() -> None:
    import json

    prod = PolicyHarness(config=json.loads((ROOT / "policies/config/prod.json").read_text()))
    props = {"instanceType": "g5.xlarge", "tags": TAGS}
    found = prod.analyze("aws:ec2/capacityReservation:CapacityReservation", props)
    assert [v for v in found if v.policy == "reservation-end-date"] == []


def _aml(**inner) -> dict:
    return {
        "tags": TAGS,
        "location": "eastus2",
        "properties": {
            "computeType": "AmlCompute",
            "properties": {"vmSize": "Standard_NC4as_T4_v3", "enableNodePublicIp": False, **inner},
        },
    }


def test_aml_scale_to_zero(dev: PolicyHarness) -> None:
    aml = "azure-native:machinelearningservices:Compute"
    assert dev.analyze(aml, _aml(scaleSettings={"minNodeCount": 0, "maxNodeCount": 2})) == []
    found = dev.analyze(aml, _aml(scaleSettings={"minNodeCount": 1, "maxNodeCount": 2}))
    assert policies_of(found) == [("aml-scale-to-zero", "mandatory")]


# --- security ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("type_", "props"),
    [
        (
            LT,
            {
                **SECURE_LT,
                "instanceType": "g5.xlarge",
                "networkInterfaces": [{"associatePublicIpAddress": "true"}],
            },
        ),
        (
            "aws:ec2/instance:Instance",
            {**SECURE_LT, "instanceType": "g6.xlarge", "associatePublicIpAddress": True},
        ),
        (
            GCP_TEMPLATE,
            {
                "labels": TAGS,
                "machineType": "g2-standard-4",
                "networkInterfaces": [{"accessConfigs": [{}]}],
            },
        ),
        (
            "azure-native:machinelearningservices:Compute",
            {k: v for k, v in _aml().items()}
            | {
                "properties": {
                    "computeType": "AmlCompute",
                    "properties": {"vmSize": "Standard_NC4as_T4_v3"},
                }
            },
        ),
    ],
)
def test_gpu_public_ip_fails(dev: PolicyHarness, type_: str, props: dict) -> None:
    assert [v.policy for v in dev.analyze(type_, props)] == ["gpu-no-public-ip"]


def test_public_ip_on_cpu_machines_is_not_this_policy(dev: PolicyHarness) -> None:
    props = {
        **SECURE_LT,
        "instanceType": "t3.micro",
        "networkInterfaces": [{"associatePublicIpAddress": "true"}],
    }
    assert dev.analyze(LT, props) == []


def test_imdsv2(dev: PolicyHarness) -> None:
    assert policies_of(dev.analyze(LT, {"tags": TAGS})) == [("imdsv2-required", "mandatory")]
    assert dev.analyze(LT, {"tags": TAGS, "metadataOptions": {"httpEndpoint": "disabled"}}) == []
    instance = {"tags": TAGS, "launchTemplate": {"id": "lt-1"}}
    assert dev.analyze("aws:ec2/instance:Instance", instance) == []  # the template decides


def test_checkpoint_buckets(dev: PolicyHarness) -> None:
    bucket = StackInput("aws:s3/bucket:Bucket", {"tags": TAGS}, "model-checkpoints")
    urn = bucket.urn("dev")
    block = StackInput(
        "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
        {
            "bucket": UNKNOWN,
            **dict.fromkeys(
                [
                    "blockPublicAcls",
                    "blockPublicPolicy",
                    "ignorePublicAcls",
                    "restrictPublicBuckets",
                ],
                True,
            ),
        },
        "block",
        property_dependencies={"bucket": [urn]},
    )
    sse = StackInput(
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
        {"bucket": UNKNOWN, "rules": [{}]},
        "sse",
        property_dependencies={"bucket": [urn]},
    )
    assert [
        v
        for v in dev.analyze_stack([bucket, block, sse])
        if v.policy == "checkpoint-bucket-private"
    ] == []
    found = [v for v in dev.analyze_stack([bucket, sse]) if v.policy == "checkpoint-bucket-private"]
    assert len(found) == 1 and "no public access block" in found[0].message
    logs = StackInput("aws:s3/bucket:Bucket", {"tags": TAGS}, "access-logs")
    assert [v for v in dev.analyze_stack([logs]) if v.policy == "checkpoint-bucket-private"] == []

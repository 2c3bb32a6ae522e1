"""SpotGroup under the offline engine: template and group, Spot scheduling, secure defaults, N1
with attached GPUs, labels, validation."""

from __future__ import annotations

import re
from typing import Any

import pytest

from gpufleet.components.gcp.spot_group import GroupBurst, SpotGroup, SpotGroupArgs
from gpufleet.components.scaling import Scaling, WeeklyRun
from gpufleet.components.tagging import RequiredTags
from tests.components.component_checks import (
    TAGS,
    assert_component_basics,
    assert_provider_would_accept,
)
from tests.components.gcp.site import IMAGE, KMS_KEY, NET
from tests.components.pulumi_mocks import Capture, capture, resolve


def test_label_collisions_are_errors() -> None:
    tags = RequiredTags(
        project="p",
        owner="o",
        cost_center="c",
        environment="e",
        workload="w",
        extra={"Team": "a", "team": "b"},
    )
    with pytest.raises(ValueError, match="tags 'Team' and 'team' both become GCP label 'team'"):
        tags.as_labels()
    with pytest.raises(ValueError, match="both become GCP label"):
        SpotGroupArgs(**spot_args(tags=tags))


def spot_args(**overrides: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "tags": TAGS,
        "machine_type": "g2-standard-8",
        "region": "us-central1",
        "zones": ["us-central1-a", "us-central1-b"],
        "target_size": 4,
        "source_image": IMAGE,
        **NET,
    }
    return values | overrides


def spot_group(**overrides: Any) -> tuple[Capture, SpotGroup]:
    args = SpotGroupArgs(**spot_args(**overrides))
    return capture(lambda: SpotGroup("eval", args))


def test_spot_group_resources_and_scheduling() -> None:
    cap, group = spot_group()
    assert cap.types == sorted(
        [
            "gpufleet:gcp:SpotGroup",
            "gcp:serviceaccount/account:Account",
            "gcp:compute/instanceTemplate:InstanceTemplate",
            "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
        ]
    )
    assert_component_basics(cap, "gpufleet:gcp:SpotGroup", "eval", tagged=1)
    template = cap.one("gcp:compute/instanceTemplate:InstanceTemplate").inputs
    assert template["scheduling"] == {
        "provisioningModel": "SPOT",
        "preemptible": True,
        "automaticRestart": False,
        "onHostMaintenance": "TERMINATE",
        "instanceTerminationAction": "DELETE",
    }
    assert template["machineType"] == "g2-standard-8"
    assert "guestAccelerators" not in template  # G2 carries its L4
    manager = cap.one("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager").inputs
    assert manager["targetSize"] == 4 and manager["region"] == "us-central1"
    assert manager["distributionPolicyZones"] == ["us-central1-a", "us-central1-b"]
    template_out = cap.one("gcp:compute/instanceTemplate:InstanceTemplate").outputs
    assert manager["versions"] == [
        {"name": "primary", "instanceTemplate": template_out["selfLinkUnique"]}
    ]
    assert resolve(group.service_account_email) == "eval-sa@acme-ml-prod.iam.gserviceaccount.com"
    assert re.search(
        r"/regions/us-central1/instanceGroups/eval-group-[0-9a-f]+$", resolve(group.instance_group)
    )


def test_spot_group_secure_defaults() -> None:
    cap, _ = spot_group()
    template = cap.one("gcp:compute/instanceTemplate:InstanceTemplate").inputs
    (nic,) = template["networkInterfaces"]
    assert "accessConfigs" not in nic  # no external IP
    assert template["shieldedInstanceConfig"] == {
        "enableSecureBoot": False,
        "enableVtpm": True,
        "enableIntegrityMonitoring": True,
    }
    assert template["metadata"] == {"enable-oslogin": "TRUE", "block-project-ssh-keys": "TRUE"}
    email = cap.one("gcp:serviceaccount/account:Account").outputs["email"]
    assert template["serviceAccount"]["email"] == email
    assert (
        "https://www.googleapis.com/auth/cloud-platform" not in template["serviceAccount"]["scopes"]
    )
    (disk,) = template["disks"]
    assert disk["boot"] and disk["autoDelete"] and disk["sourceImage"] == IMAGE
    # Google-managed keys by default (the documented exception to CKV_GCP_38's family).
    assert "diskEncryptionKey" not in disk


def test_spot_group_disks_take_a_customer_managed_key() -> None:
    cap, _ = spot_group(disk_kms_key=KMS_KEY)
    (disk,) = cap.one("gcp:compute/instanceTemplate:InstanceTemplate").inputs["disks"]
    assert disk["diskEncryptionKey"] == {"kmsKeySelfLink": KMS_KEY}
    assert disk["labels"] == TAGS.as_labels()


def test_spot_group_on_n1_with_t4_stop_and_max_run() -> None:
    cap, _ = spot_group(
        machine_type="n1-standard-8",
        gpu="t4",
        gpu_count=2,
        termination_action="STOP",
        max_run_seconds=4 * 3600,
    )
    template = cap.one("gcp:compute/instanceTemplate:InstanceTemplate").inputs
    assert template["guestAccelerators"] == [{"type": "nvidia-tesla-t4", "count": 2}]
    assert template["scheduling"]["instanceTerminationAction"] == "STOP"
    assert template["scheduling"]["maxRunDuration"] == {"seconds": 4 * 3600}
    assert_provider_would_accept(cap)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"machine_type": "n1-standard-8"}, "needs gpu and gpu_count"),
        (
            {"machine_type": "a2-highgpu-1g", "gpu": "A100", "gpu_count": 1},
            "carries 1 A100 already",
        ),
        ({"zones": ["europe-west4-a"]}, "not in region us-central1"),
        ({"zones": []}, "at least 1"),
        ({"zones": ["us-central1"]}, "'us-central1' is not a GCP zone"),
        ({"region": "us central"}, "not a GCP region"),
        ({"termination_action": "TERMINATE"}, "Input should be 'STOP' or 'DELETE'"),
        ({"max_run_seconds": 10}, "greater than or equal to 30"),
        ({"target_size": -1}, "greater than or equal to 0"),
        ({"source_image": ""}, "at least 1 character"),
        ({"disk_kms_key": "disks-key"}, "'disks-key' is not a Cloud KMS key"),
    ],
)
def test_spot_group_validation(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        SpotGroupArgs(**spot_args(**overrides))


AUTOSCALER = "gcp:compute/regionAutoscaler:RegionAutoscaler"
GROUP = "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager"


def test_a_fixed_group_has_no_autoscaler() -> None:
    cap, _ = spot_group()
    assert not cap.of_type(AUTOSCALER)
    assert cap.one(GROUP).inputs["targetSize"] == 4 and cap.one(GROUP).ignore_changes == []


def test_a_group_on_request_has_an_autoscaler_off_from_zero_to_its_size() -> None:
    cap, _ = spot_group(scaling=Scaling(mode="on_request", expected_hours=150))
    mode, minutes = "OFF", "9000"
    group = cap.one(GROUP)
    assert group.inputs["targetSize"] == 0 and group.ignore_changes == ["targetSize"]
    autoscaler = cap.one(AUTOSCALER)
    policy = autoscaler.inputs["autoscalingPolicy"]
    assert (policy["minReplicas"], policy["maxReplicas"], policy["mode"]) == (0, 4, mode)
    assert autoscaler.inputs["region"] == "us-central1"
    # A run resizes the group (its size is left to runs) and never touches the autoscaler.
    assert autoscaler.ignore_changes == []
    (target,) = autoscaler.property_dependencies["target"]
    assert target == group.urn
    # On the autoscaler, not the template: a template cannot change without replacing VMs.
    assert autoscaler.inputs["description"] == f"gpufleet expected-minutes={minutes}"
    labels = cap.one("gcp:compute/instanceTemplate:InstanceTemplate").inputs["labels"]
    assert "expected-minutes" not in labels


def test_a_scheduled_group_holds_its_size_for_each_weekly_run() -> None:
    runs = [WeeklyRun(start_minute=day * 1440 + 8 * 60, minutes=12 * 60) for day in range(5)]
    cap, _ = spot_group(scaling=Scaling(mode="schedule", time_zone="Asia/Tokyo", runs=runs))
    schedules = cap.one(AUTOSCALER).inputs["autoscalingPolicy"]["scalingSchedules"]
    assert len(schedules) == 5
    assert cap.one(AUTOSCALER).ignore_changes == []
    first = schedules[0]
    assert (first["schedule"], first["durationSec"], first["minRequiredReplicas"]) == (
        "0 8 * * 1",
        12 * 3600,
        4,
    )
    assert first["timeZone"] == "Asia/Tokyo"


def test_spot_group_in_a_reservation_consumes_it_by_name() -> None:
    cap, _ = spot_group(
        reservation="chat-serving-reservation",
        provisioning_model="STANDARD",
        zones=["us-central1-a"],
    )
    assert_provider_would_accept(cap)
    template = cap.one("gcp:compute/instanceTemplate:InstanceTemplate").inputs
    assert template["reservationAffinity"] == {
        "type": "SPECIFIC_RESERVATION",
        "specificReservation": {
            "key": "compute.googleapis.com/reservation-name",
            "values": ["chat-serving-reservation"],
        },
    }
    assert template["scheduling"]["provisioningModel"] == "STANDARD"
    group = cap.one("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager").inputs
    assert group["distributionPolicyZones"] == ["us-central1-a"]


@pytest.mark.parametrize(
    "overrides",
    [
        {"provisioning_model": "SPOT", "zones": ["us-central1-a"]},
        {"provisioning_model": "STANDARD", "zones": ["us-central1-a", "us-central1-b"]},
    ],
)
def test_a_reservation_takes_standard_vms_in_its_one_zone(overrides: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="reservation needs provisioning_model STANDARD"):
        SpotGroupArgs(**spot_args(reservation="r", **overrides))


def test_a_gcp_group_cannot_follow_another_groups_load() -> None:
    with pytest.raises(ValueError, match="cannot scale on another group's load"):
        SpotGroupArgs(**spot_args(scaling=Scaling(mode="on_load", expected_hours=120)))


def test_a_burst_is_a_second_version_of_the_base_group_scaled_on_its_cpu() -> None:
    cap, group = spot_group(
        reservation="chat-serving-reservation",
        provisioning_model="STANDARD",
        zones=["us-central1-a"],
        target_size=2,
        burst=GroupBurst(instances=4, expected_hours=138),
    )
    assert_provider_would_accept(cap)
    templates = {r.name: r for r in cap.of_type("gcp:compute/instanceTemplate:InstanceTemplate")}
    base, burst = templates["eval-template"], templates["eval-burst-template"]
    # The base in the reservation, standard; the burst Spot, outside it.
    assert base.inputs["scheduling"]["provisioningModel"] == "STANDARD"
    assert base.inputs["reservationAffinity"]["type"] == "SPECIFIC_RESERVATION"
    assert burst.inputs["scheduling"]["provisioningModel"] == "SPOT"
    assert "reservationAffinity" not in burst.inputs
    manager = cap.one(GROUP)
    assert manager.inputs["targetSize"] == 2 and manager.ignore_changes == ["targetSize"]
    assert manager.inputs["versions"] == [
        {
            "name": "base",
            "instanceTemplate": base.outputs["selfLinkUnique"],
            "targetSize": {"fixed": 2},
        },
        {"name": "burst", "instanceTemplate": burst.outputs["selfLinkUnique"]},
    ]
    autoscaler = cap.one(AUTOSCALER)
    policy = autoscaler.inputs["autoscalingPolicy"]
    # Never below the base, up to the burst more, on the group's own average CPU.
    assert (policy["minReplicas"], policy["maxReplicas"], policy["mode"]) == (2, 6, "ON")
    assert policy["cpuUtilization"] == {"target": 0.7}
    assert "scalingSchedules" not in policy
    assert autoscaler.ignore_changes == []
    assert autoscaler.inputs["description"] == "gpufleet expected-minutes=8280"
    (target,) = autoscaler.property_dependencies["target"]
    assert target == manager.urn
    assert resolve(group.burst_template_self_link) == burst.outputs["selfLink"]


def test_an_on_demand_burst_uses_standard_vms() -> None:
    cap, _ = spot_group(
        provisioning_model="STANDARD",
        target_size=1,
        burst=GroupBurst(instances=2, provisioning_model="STANDARD", expected_hours=10),
    )
    models = {
        r.name: r.inputs["scheduling"]["provisioningModel"]
        for r in cap.of_type("gcp:compute/instanceTemplate:InstanceTemplate")
    }
    assert models == {"eval-template": "STANDARD", "eval-burst-template": "STANDARD"}


@pytest.mark.parametrize(
    "overrides",
    [
        {"scaling": Scaling(mode="on_request", expected_hours=10)},
        {"target_size": 0},
    ],
)
def test_a_burst_goes_above_an_always_on_base(overrides: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="a burst goes above an always-on base"):
        SpotGroupArgs(**spot_args(burst=GroupBurst(instances=2, expected_hours=10), **overrides))


def test_a_group_on_request_has_a_guard_that_can_only_resize_it_to_zero() -> None:
    cap, group = spot_group(scaling=Scaling(mode="on_request", expected_hours=150))
    manager = cap.one(GROUP)
    link = manager.outputs["selfLink"]
    path = link[link.index("projects/") :]
    queue = cap.one("gcp:cloudtasks/queue:Queue")
    # Named after the group (a run finds it from the group), in the group's region.
    assert queue.inputs["name"] == f"{manager.outputs['name']}-guard"
    assert queue.inputs["location"] == "us-central1"
    target = queue.inputs["httpTarget"]
    # Whatever a task says, the queue makes one call: this group's resize to 0.
    assert target["httpMethod"] == "POST"
    assert target["uriOverride"] == {
        "scheme": "HTTPS",
        "host": "compute.googleapis.com",
        "pathOverride": {"path": f"/compute/v1/{path}/resize"},
        "queryOverride": {"queryParams": "size=0"},
        "uriOverrideEnforceMode": "ALWAYS",
    }
    account = next(
        r for r in cap.of_type("gcp:serviceaccount/account:Account") if r.name == "eval-guard"
    )
    assert target["oauthToken"]["serviceAccountEmail"] == account.outputs["email"]
    assert queue.inputs["retryConfig"]["maxAttempts"] == -1
    # The guard's account acts on this group only, and holds no key.
    member = cap.one("gcp:projects/iAMMember:IAMMember")
    assert member.inputs["member"] == f"serviceAccount:{account.outputs['email']}"
    assert member.inputs["role"] == "roles/compute.instanceAdmin.v1"
    assert member.inputs["condition"]["expression"] == f'resource.name == "{path}"'
    assert not cap.of_type("gcp:serviceaccount/key:Key")
    assert resolve(group.guard_queue) == queue.outputs["id"]


@pytest.mark.parametrize(
    "scaling",
    [
        Scaling(),
        Scaling(mode="schedule", runs=[WeeklyRun(start_minute=0, minutes=60)]),
    ],
)
def test_groups_not_on_request_have_no_guard(scaling: Scaling) -> None:
    cap, group = spot_group(scaling=scaling)
    assert not cap.of_type("gcp:cloudtasks/queue:Queue")
    assert group.guard_queue is None

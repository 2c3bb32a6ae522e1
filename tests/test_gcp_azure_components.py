"""GCP and Azure components under Pulumi mocks: resources, key inputs, labels / tags on every
taggable child, parents, secure defaults, values the provider would reject, and validation."""

from __future__ import annotations

import re
from typing import Any

import pytest

from gpufleet.components.azure.capacity_reservation_group import (
    CapacityReservationGroup,
    CapacityReservationGroupArgs,
)
from gpufleet.components.azure.low_priority_cluster import (
    LowPriorityCluster,
    LowPriorityClusterArgs,
)
from gpufleet.components.azure.names import (
    compute_name,
    computer_name_prefix,
    key_vault_name,
    storage_account_name,
)
from gpufleet.components.azure.spot_scale_set import SpotScaleSet, SpotScaleSetArgs
from gpufleet.components.gcp.compact_cluster import CompactCluster, CompactClusterArgs
from gpufleet.components.gcp.instance_settings import service_account_id
from gpufleet.components.gcp.reservation_pool import ReservationPool, ReservationPoolArgs
from gpufleet.components.gcp.spot_group import SpotGroup, SpotGroupArgs
from gpufleet.components.tagging import RequiredTags
from gpufleet.planner.gcp_machines import machine_gpus
from gpufleet.tag_keys import gcp_label_key, gcp_label_value

from .component_checks import (
    TAGS,
    assert_children_of,
    assert_nothing_deprecated,
    assert_provider_would_accept,
    assert_tagged,
)
from .pulumi_mocks import AZURE_TENANT, Capture, capture, resolve

IMAGE = "projects/deeplearning-platform-release/global/images/family/common-cu124-debian-11"
NET = {"network": "projects/acme-ml-prod/global/networks/ml", "subnetwork": "ml-us-central1"}
SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGpufleettestkey ops@acme"
SUBNET_ID = (
    "/subscriptions/0/resourceGroups/rg-ml/providers/Microsoft.Network/"
    "virtualNetworks/ml/subnets/gpu"
)


def check_common(cap: Capture, component_type: str, name: str, tagged: int, enums: int = 3) -> None:
    assert_children_of(cap, component_type, name)
    assert assert_tagged(cap) == tagged
    assert assert_provider_would_accept(cap) >= enums
    assert_nothing_deprecated(cap)


# --- labels --------------------------------------------------------------------------------------


def test_tags_become_valid_gcp_labels() -> None:
    labels = TAGS.as_labels()
    assert labels == {
        "team": "research",
        "project": "acme-ml",
        "owner": "ml-platform_acme_example",
        "cost-center": "cc-4200",
        "environment": "dev",
        "workload": "trainer",
        "managed-by": "gpufleet",
    }
    for key, value in labels.items():
        assert re.fullmatch(r"[a-z][a-z0-9_-]{0,62}", key)
        assert re.fullmatch(r"[a-z0-9_-]{0,63}", value)


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("Cost Center", "cost_center", "cost_center"),
        ("2fa", "k2fa", "2fa"),
        ("ÜBER/team", "k_ber_team", "_ber_team"),
        ("x" * 70, "x" * 63, "x" * 63),
    ],
)
def test_label_normalization(text: str, key: str, value: str) -> None:
    assert gcp_label_key(text) == key
    assert gcp_label_value(text) == value
    assert gcp_label_key(gcp_label_key(text)) == gcp_label_key(text)  # idempotent


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


# --- GCP machine / GPU pairing -------------------------------------------------------------------


def test_machine_gpu_pairing() -> None:
    a3 = machine_gpus("a3-highgpu-8g")
    assert (a3.gpu_name, a3.count, a3.attached, a3.accelerator_type) == (
        "H100",
        8,
        False,
        "nvidia-h100-80gb",
    )
    assert machine_gpus("a3-megagpu-8g").accelerator_type == "nvidia-h100-mega-80gb"
    assert machine_gpus("g2-standard-24").count == 2
    n1 = machine_gpus("n1-standard-8", "v100", 1)
    assert (n1.gpu_name, n1.count, n1.attached, n1.accelerator_type) == (
        "V100",
        1,
        True,
        "nvidia-tesla-v100",
    )


@pytest.mark.parametrize(
    ("machine", "gpu", "count", "message"),
    [
        ("a2-highgpu-1g", "A100", 1, "carries 1 A100 already"),
        ("n1-standard-8", None, None, "needs gpu and gpu_count"),
        ("n1-standard-8", "L4", 1, "N1 machines take T4, V100, P100, P4, not L4"),
        ("n1-standard-8", "T4", 3, "T4 attaches in counts of [1, 2, 4], not 3"),
        ("n1-standard-16", "V100", 1, "has 16 vCPUs; with 1 V100 GCP allows at most 12"),
        ("e2-standard-8", "T4", 1, "takes no GPUs"),
    ],
)
def test_machine_gpu_pairing_rejects(
    machine: str, gpu: str | None, count: int | None, message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        machine_gpus(machine, gpu, count)


def test_service_account_ids_are_valid() -> None:
    for name in ("eval", "x", "support-bot-finetune-with-a-very-long-name", "9lives"):
        account = service_account_id(name)
        assert re.fullmatch(r"[a-z]([-a-z0-9]{4,28})[a-z0-9]", account), account
    assert service_account_id("eval") == "eval-sa"


# --- SpotGroup -----------------------------------------------------------------------------------


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
    check_common(cap, "gpufleet:gcp:SpotGroup", "eval", tagged=1)
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
    ],
)
def test_spot_group_validation(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        SpotGroupArgs(**spot_args(**overrides))


# --- CompactCluster ------------------------------------------------------------------------------


def compact(**overrides: Any) -> tuple[Capture, CompactCluster]:
    values: dict[str, Any] = {
        "tags": TAGS,
        "machine_type": "a3-highgpu-8g",
        "nodes": 3,
        "zone": "us-east4-a",
        "source_image": IMAGE,
        **NET,
    }
    args = CompactClusterArgs(**(values | overrides))
    return capture(lambda: CompactCluster("pretrain", args))


def test_compact_cluster_places_every_node_with_the_policy_in_one_zone() -> None:
    cap, cluster = compact()
    check_common(cap, "gpufleet:gcp:CompactCluster", "pretrain", tagged=3)
    policy = cap.one("gcp:compute/resourcePolicy:ResourcePolicy")
    assert policy.inputs["groupPlacementPolicy"] == {"collocation": "COLLOCATED", "vmCount": 3}
    assert policy.inputs["region"] == "us-east4"
    nodes = cap.of_type("gcp:compute/instance:Instance")
    assert sorted(n.name for n in nodes) == [
        "pretrain-node-0",
        "pretrain-node-1",
        "pretrain-node-2",
    ]
    for node in nodes:
        assert node.inputs["zone"] == "us-east4-a"
        assert node.inputs["resourcePolicies"] == policy.outputs["selfLink"]
        assert node.inputs["scheduling"]["onHostMaintenance"] == "TERMINATE"
        assert node.inputs["scheduling"]["provisioningModel"] == "STANDARD"
        assert "accessConfigs" not in node.inputs["networkInterfaces"][0]
    assert len(resolve(cluster.instance_self_links)) == 3


def test_compact_cluster_consumes_a_reservation_or_runs_on_spot() -> None:
    cap, _ = compact(reservation="chat-serving-reservation-abc")
    affinity = cap.of_type("gcp:compute/instance:Instance")[0].inputs["reservationAffinity"]
    assert affinity == {
        "type": "SPECIFIC_RESERVATION",
        "specificReservation": {
            "key": "compute.googleapis.com/reservation-name",
            "values": ["chat-serving-reservation-abc"],
        },
    }
    spot, _ = compact(provisioning="SPOT")
    scheduling = spot.of_type("gcp:compute/instance:Instance")[0].inputs["scheduling"]
    assert scheduling["provisioningModel"] == "SPOT" and scheduling["automaticRestart"] is False


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"machine_type": "n1-standard-8"}, "cannot use compact placement"),
        ({"machine_type": "e2-standard-8"}, "cannot use compact placement"),
        ({"nodes": 1}, "greater than or equal to 2"),
        ({"zone": "us-east4"}, "not a GCP zone"),
        ({"provisioning": "SPOT", "reservation": "r"}, "Spot VMs cannot consume a reservation"),
    ],
)
def test_compact_cluster_validation(overrides: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {
        "tags": TAGS,
        "machine_type": "a2-highgpu-8g",
        "nodes": 2,
        "zone": "us-central1-a",
        "source_image": IMAGE,
        **NET,
    }
    with pytest.raises(ValueError, match=re.escape(message)):
        CompactClusterArgs(**(values | overrides))


# --- ReservationPool -----------------------------------------------------------------------------


def test_reservation_pool_is_specific_and_protected() -> None:
    args = ReservationPoolArgs(
        tags=TAGS,
        machine_type="n1-standard-8",
        gpu="T4",
        gpu_count=1,
        zone="us-central1-a",
        count=4,
        share_with_projects=["acme-ml-dev"],
    )
    cap, pool = capture(lambda: ReservationPool("serving", args))
    check_common(cap, "gpufleet:gcp:ReservationPool", "serving", tagged=0, enums=2)
    reservation = cap.one("gcp:compute/reservation:Reservation")
    assert reservation.protect is True
    assert reservation.inputs["specificReservationRequired"] is True
    assert reservation.inputs["zone"] == "us-central1-a"
    assert reservation.inputs["specificReservation"] == {
        "count": 4,
        "instanceProperties": {
            "machineType": "n1-standard-8",
            "guestAccelerators": [{"acceleratorType": "nvidia-tesla-t4", "acceleratorCount": 1}],
        },
    }
    assert reservation.inputs["shareSettings"] == {
        "shareType": "SPECIFIC_PROJECTS",
        "projectMaps": [{"id": "acme-ml-dev", "projectId": "acme-ml-dev"}],
    }
    name = resolve(pool.reservation_name)
    assert resolve(pool.reservation_affinity["specific_reservation"]["values"][0]) == name


def test_reservation_pool_validation() -> None:
    with pytest.raises(ValueError, match="carries 8 H100 already"):
        ReservationPoolArgs(
            tags=TAGS,
            machine_type="a3-highgpu-8g",
            gpu="H100",
            gpu_count=8,
            zone="us-east4-a",
            count=1,
        )
    with pytest.raises(ValueError, match="not GCP project ids: Acme_Dev"):
        ReservationPoolArgs(
            tags=TAGS,
            machine_type="g2-standard-4",
            zone="us-east4-a",
            count=1,
            share_with_projects=["Acme_Dev"],
        )
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        ReservationPoolArgs(tags=TAGS, machine_type="g2-standard-4", zone="us-east4-a", count=0)


# --- Azure names ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["nightly-embeddings", "x", "123-serve", "A" * 80])
def test_azure_names_are_valid_and_stable(name: str) -> None:
    assert re.fullmatch(r"[a-z0-9]{3,24}", storage_account_name(name))
    assert re.fullmatch(r"[a-z][a-z0-9-]{1,22}[a-z0-9]", key_vault_name(name))
    assert re.fullmatch(r"[a-z][a-z0-9-]{1,15}", compute_name(name))
    # Linux computer names: letters, digits and '-', not ending in '-'; at most 9 for a prefix.
    assert re.fullmatch(r"[a-z0-9]([a-z0-9-]{0,7}[a-z0-9])?", computer_name_prefix(name))
    assert storage_account_name(name) == storage_account_name(name)  # derived, not random


# --- LowPriorityCluster --------------------------------------------------------------------------


def aml(**overrides: Any) -> tuple[Capture, LowPriorityCluster]:
    values: dict[str, Any] = {
        "tags": TAGS,
        "resource_group_name": "rg-ml",
        "location": "eastus2",
        "vm_size": "Standard_NC4as_T4_v3",
        "max_nodes": 4,
    }
    args = LowPriorityClusterArgs(**(values | overrides))
    return capture(lambda: LowPriorityCluster("embeddings", args))


def test_low_priority_cluster_scales_to_zero_without_public_ips() -> None:
    cap, cluster = aml()
    check_common(cap, "gpufleet:azure:LowPriorityCluster", "embeddings", tagged=6)
    compute = cap.one("azure-native:machinelearningservices:Compute").inputs
    aml_properties = compute["properties"]["properties"]
    assert compute["properties"]["computeType"] == "AmlCompute"
    assert aml_properties["vmPriority"] == "LowPriority"
    assert aml_properties["vmSize"] == "Standard_NC4as_T4_v3"
    assert aml_properties["scaleSettings"] == {
        "minNodeCount": 0,
        "maxNodeCount": 4,
        "nodeIdleTimeBeforeScaleDown": "PT600S",
    }
    assert aml_properties["enableNodePublicIp"] is False
    assert aml_properties["remoteLoginPortPublicAccess"] == "Disabled"
    assert "userAccountCredentials" not in aml_properties
    assert compute["identity"] == {"type": "SystemAssigned"}
    assert compute["computeName"] == "embeddings"
    assert resolve(cluster.principal_id).endswith("-0000-0000-0000-000000000000")


def test_low_priority_cluster_creates_a_hardened_workspace() -> None:
    cap, cluster = aml()
    storage = cap.one("azure-native:storage:StorageAccount").inputs
    assert storage["allowBlobPublicAccess"] is False
    assert storage["minimumTlsVersion"] == "TLS1_2" and storage["enableHttpsTrafficOnly"] is True
    vault = cap.one("azure-native:keyvault:Vault").inputs["properties"]
    assert vault["tenantId"] == AZURE_TENANT
    assert vault["enableRbacAuthorization"] and vault["enablePurgeProtection"]
    workspace = cap.one("azure-native:machinelearningservices:Workspace")
    ids = {r.type: r.outputs["id"] for r in cap.registrations if r.custom}
    assert workspace.inputs["storageAccount"] == ids["azure-native:storage:StorageAccount"]
    assert workspace.inputs["keyVault"] == ids["azure-native:keyvault:Vault"]
    assert (
        workspace.inputs["applicationInsights"] == ids["azure-native:applicationinsights:Component"]
    )
    assert workspace.inputs["managedNetwork"]["isolationMode"] == "AllowInternetOutbound"
    compute = cap.one("azure-native:machinelearningservices:Compute").inputs
    assert compute["workspaceName"] == workspace.outputs["name"]
    assert resolve(cluster.workspace_name) == workspace.outputs["name"]


def test_low_priority_cluster_in_an_existing_workspace_with_ssh() -> None:
    cap, _ = aml(workspace_name="ml-prod", min_nodes=1, subnet_id=SUBNET_ID, ssh_public_key=SSH_KEY)
    assert cap.types == [
        "azure-native:machinelearningservices:Compute",
        "gpufleet:azure:LowPriorityCluster",
    ]
    properties = cap.one("azure-native:machinelearningservices:Compute").inputs["properties"][
        "properties"
    ]
    assert properties["subnet"] == {"id": SUBNET_ID}
    assert properties["userAccountCredentials"]["adminUserSshPublicKey"] == SSH_KEY
    assert properties["remoteLoginPortPublicAccess"] == "Disabled"
    assert properties["scaleSettings"]["minNodeCount"] == 1


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"vm_size": "Standard_D4s_v5"}, "not an Azure GPU size in the catalog"),
        ({"min_nodes": 5}, "min_nodes (5) exceeds max_nodes (4)"),
        ({"max_nodes": 0}, "greater than or equal to 1"),
        ({"ssh_public_key": "hunter2"}, "not an OpenSSH public key"),
        ({"idle_seconds_before_scale_down": 5}, "greater than or equal to 60"),
    ],
)
def test_low_priority_cluster_validation(overrides: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {
        "tags": TAGS,
        "resource_group_name": "rg",
        "location": "eastus",
        "vm_size": "Standard_NC4as_T4_v3",
        "max_nodes": 4,
    }
    with pytest.raises(ValueError, match=re.escape(message)):
        LowPriorityClusterArgs(**(values | overrides))


# --- SpotScaleSet --------------------------------------------------------------------------------


def scale_set(**overrides: Any) -> tuple[Capture, SpotScaleSet]:
    values: dict[str, Any] = {
        "tags": TAGS,
        "resource_group_name": "rg-ml",
        "location": "eastus",
        "vm_size": "Standard_NC24ads_A100_v4",
        "instances": 2,
        "subnet_id": SUBNET_ID,
        "ssh_public_key": SSH_KEY,
    }
    args = SpotScaleSetArgs(**(values | overrides))
    return capture(lambda: SpotScaleSet("workers", args))


def test_spot_scale_set() -> None:
    cap, component = scale_set()
    check_common(cap, "gpufleet:azure:SpotScaleSet", "workers", tagged=1)
    vmss = cap.one("azure-native:compute:VirtualMachineScaleSet").inputs
    profile = vmss["virtualMachineProfile"]
    assert vmss["sku"] == {"name": "Standard_NC24ads_A100_v4", "capacity": 2, "tier": "Standard"}
    assert profile["priority"] == "Spot" and profile["evictionPolicy"] == "Delete"
    assert profile["billingProfile"] == {"maxPrice": -1}
    assert profile["scheduledEventsProfile"]["terminateNotificationProfile"]["enable"] is True
    linux = profile["osProfile"]["linuxConfiguration"]
    assert linux["disablePasswordAuthentication"] is True
    assert linux["ssh"]["publicKeys"][0]["keyData"] == SSH_KEY
    (nic,) = profile["networkProfile"]["networkInterfaceConfigurations"]
    (ip,) = nic["ipConfigurations"]
    assert "publicIPAddressConfiguration" not in ip and "publicIpAddressConfiguration" not in ip
    assert ip["subnet"] == {"id": SUBNET_ID}
    assert "proximityPlacementGroup" not in vmss
    assert resolve(component.scale_set_name)
    assert component.proximity_placement_group_id is None


def test_spot_scale_set_with_placement_group_price_cap_and_deallocate() -> None:
    cap, component = scale_set(
        proximity_placement_group=True, max_price=1.25, eviction_policy="Deallocate", zones=["1"]
    )
    check_common(cap, "gpufleet:azure:SpotScaleSet", "workers", tagged=2)
    group = cap.one("azure-native:compute:ProximityPlacementGroup")
    vmss = cap.one("azure-native:compute:VirtualMachineScaleSet").inputs
    assert vmss["proximityPlacementGroup"] == {"id": group.outputs["id"]}
    assert vmss["zones"] == ["1"] and group.inputs["zones"] == ["1"]
    assert vmss["virtualMachineProfile"]["billingProfile"] == {"maxPrice": 1.25}
    assert vmss["virtualMachineProfile"]["evictionPolicy"] == "Deallocate"
    assert resolve(component.proximity_placement_group_id) == group.outputs["id"]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"max_price": 0}, "is -1 (up to the on-demand price) or a price above 0"),
        ({"max_price": -2}, "is -1 (up to the on-demand price) or a price above 0"),
        ({"eviction_policy": "Stop"}, "Input should be 'Deallocate' or 'Delete'"),
        ({"vm_size": "Standard_D2s_v3"}, "not an Azure GPU size"),
        ({"ssh_public_key": "not-a-key"}, "not an OpenSSH public key"),
        ({"zones": ["4"]}, "Input should be '1', '2' or '3'"),
        ({"image": {"publisher": "x"}}, "needs publisher, offer, sku and version"),
    ],
)
def test_spot_scale_set_validation(overrides: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {
        "tags": TAGS,
        "resource_group_name": "rg",
        "location": "eastus",
        "vm_size": "Standard_NC24ads_A100_v4",
        "instances": 1,
        "subnet_id": SUBNET_ID,
        "ssh_public_key": SSH_KEY,
    }
    with pytest.raises(ValueError, match=re.escape(message)):
        SpotScaleSetArgs(**(values | overrides))


# --- CapacityReservationGroup --------------------------------------------------------------------


def test_capacity_reservation_group_per_zone() -> None:
    args = CapacityReservationGroupArgs(
        tags=TAGS,
        resource_group_name="rg-ml",
        location="eastus",
        vm_size="Standard_NC24ads_A100_v4",
        capacity_per_zone={"2": 1, "1": 2},
    )
    cap, component = capture(lambda: CapacityReservationGroup("serving", args))
    check_common(cap, "gpufleet:azure:CapacityReservationGroup", "serving", tagged=3, enums=2)
    group = cap.one("azure-native:compute:CapacityReservationGroup")
    assert group.protect is True and group.inputs["zones"] == ["1", "2"]
    reservations = cap.of_type("azure-native:compute:CapacityReservation")
    assert [(r.name, r.inputs["zones"], r.inputs["sku"]) for r in reservations] == [
        ("serving-zone-1", ["1"], {"name": "Standard_NC24ads_A100_v4", "capacity": 2}),
        ("serving-zone-2", ["2"], {"name": "Standard_NC24ads_A100_v4", "capacity": 1}),
    ]
    assert all(r.protect for r in reservations)
    assert all(
        r.inputs["capacityReservationGroupName"] == group.outputs["name"] for r in reservations
    )
    assert resolve(component.group_id) == group.outputs["id"]


def test_capacity_reservation_group_regional() -> None:
    args = CapacityReservationGroupArgs(
        tags=TAGS,
        resource_group_name="rg-ml",
        location="eastus",
        vm_size="Standard_NC4as_T4_v3",
        regional_capacity=3,
    )
    cap, _ = capture(lambda: CapacityReservationGroup("batch", args))
    (reservation,) = cap.of_type("azure-native:compute:CapacityReservation")
    assert reservation.name == "batch-regional" and "zones" not in reservation.inputs
    assert "zones" not in cap.one("azure-native:compute:CapacityReservationGroup").inputs


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({}, "give exactly one of capacity_per_zone and regional_capacity"),
        ({"capacity_per_zone": {"1": 1}, "regional_capacity": 1}, "give exactly one"),
        ({"capacity_per_zone": {}}, "needs at least one zone"),
        ({"capacity_per_zone": {"1": 0}}, "counts must be 1-1000"),
        ({"capacity_per_zone": {"5": 1}}, "Input should be '1', '2' or '3'"),
        ({"regional_capacity": 1, "vm_size": "Standard_E4s_v5"}, "not an Azure GPU size"),
    ],
)
def test_capacity_reservation_group_validation(overrides: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {
        "tags": TAGS,
        "resource_group_name": "rg",
        "location": "eastus",
        "vm_size": "Standard_NC4as_T4_v3",
    }
    with pytest.raises(ValueError, match=re.escape(message)):
        CapacityReservationGroupArgs(**(values | overrides))

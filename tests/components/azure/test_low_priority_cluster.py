"""LowPriorityCluster under the offline engine: scale to zero, no public IPs, the hardened
workspace, validation."""

from __future__ import annotations

import re
from typing import Any

import pytest

from gpufleet.components.azure.low_priority_cluster import (
    LowPriorityCluster,
    LowPriorityClusterArgs,
)
from tests.components.azure.site import SSH_KEY, SUBNET_ID
from tests.components.component_checks import (
    TAGS,
    assert_component_basics,
)
from tests.components.pulumi_mocks import AZURE_TENANT, Capture, capture, resolve


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
    assert_component_basics(cap, "gpufleet:azure:LowPriorityCluster", "embeddings", tagged=6)
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
    # CKV_AZURE_59: no public network access; CKV_AZURE_206: geo-redundant.
    assert storage["publicNetworkAccess"] == "Disabled"
    assert storage["sku"] == {"name": "Standard_GRS"}
    # CKV2_AZURE_40 is the documented exception: shared keys stay on unless asked.
    assert storage["allowSharedKeyAccess"] is True
    vault = cap.one("azure-native:keyvault:Vault").inputs["properties"]
    assert vault["tenantId"] == AZURE_TENANT
    assert vault["enableRbacAuthorization"] and vault["enablePurgeProtection"]
    # CKV_AZURE_109: the vault's firewall denies by default; CKV_AZURE_189: no public access.
    assert vault["networkAcls"] == {"defaultAction": "Deny", "bypass": "AzureServices"}
    assert vault["publicNetworkAccess"] == "Disabled"
    workspace = cap.one("azure-native:machinelearningservices:Workspace")
    # CKV_AZURE_144: the workspace is not public.
    assert workspace.inputs["publicNetworkAccess"] == "Disabled"
    assert "systemDatastoresAuthMode" not in workspace.inputs
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


def test_low_priority_cluster_workspace_opened_or_keyless_when_asked() -> None:
    cap, _ = aml(workspace_public_network_access=True)
    workspace = cap.one("azure-native:machinelearningservices:Workspace").inputs
    storage = cap.one("azure-native:storage:StorageAccount").inputs
    assert workspace["publicNetworkAccess"] == storage["publicNetworkAccess"] == "Enabled"
    # The vault stays closed: only the workspace uses it.
    vault = cap.one("azure-native:keyvault:Vault").inputs["properties"]
    assert vault["publicNetworkAccess"] == "Disabled"
    assert vault["networkAcls"]["defaultAction"] == "Deny"
    cap, _ = aml(storage_shared_key_access=False)
    assert cap.one("azure-native:storage:StorageAccount").inputs["allowSharedKeyAccess"] is False
    workspace = cap.one("azure-native:machinelearningservices:Workspace").inputs
    assert workspace["systemDatastoresAuthMode"] == "Identity"
    assert workspace["publicNetworkAccess"] == "Disabled"


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
        (
            {"workspace_name": "ml-prod", "workspace_public_network_access": True},
            "apply to the workspace the component creates",
        ),
        (
            {"workspace_name": "ml-prod", "storage_shared_key_access": False},
            "apply to the workspace the component creates",
        ),
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

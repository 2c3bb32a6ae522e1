"""LowPriorityCluster: an Azure ML compute cluster on low-priority GPU VMs that scales to zero.

An ``azure_native.machinelearningservices.Compute`` of type AmlCompute with
``vm_priority=LowPriority`` (Azure ML's spot: evictable, a fraction of the price), scale
settings from ``min_nodes`` (default 0, so an idle cluster costs nothing) to ``max_nodes``,
releasing idle nodes after ``idle_seconds_before_scale_down``. Secure defaults: no public IP on
the nodes, the SSH port closed (and no admin account) unless ``ssh_public_key`` is given, a
system-assigned managed identity for jobs to reach storage without keys, tags on everything.

Nodes without public IPs need a way out: a ``subnet_id`` in your VNet, or a workspace with a
managed network. Pass ``workspace_name`` to use an existing workspace; otherwise the component
creates one with its required dependencies — storage account, key vault, Log Analytics workspace
and workspace-based Application Insights — and a managed network that allows internet outbound
and reaches the storage account and key vault through private endpoints. Closed to public
networks by default:

- the workspace: public network access disabled (Checkov CKV_AZURE_144); reach it through a
  private endpoint of yours, or set ``workspace_public_network_access=True`` for a workspace
  (and its storage account, where job code and outputs go) open to the internet, Entra ID
  sign-in still required;
- the key vault: public network access disabled and its firewall denying by default, trusted
  Azure services through (CKV_AZURE_189, CKV_AZURE_109); RBAC, soft delete, purge protection;
- the storage account: public network access disabled (CKV_AZURE_59), geo-redundant
  (``Standard_GRS``, CKV_AZURE_206), no public blob access, TLS 1.2, HTTPS only.

The documented exception: the storage account accepts shared keys by default (CKV2_AZURE_40
asks for them off). An Azure ML workspace whose storage refuses shared keys is a Microsoft
preview, not for production by Microsoft's own terms, and its jobs then reach storage as their
compute's identity, which needs data-plane roles on the account (Storage Blob Data
Contributor, Storage File Data Privileged Contributor) that a Contributor deploying the stack
cannot grant. ``storage_shared_key_access=False`` turns shared keys off, and the workspace's
system datastores to identity-based access, once those roles are granted.

Example::

    from gpufleet.components.azure.low_priority_cluster import (
        LowPriorityCluster, LowPriorityClusterArgs)

    embeddings = LowPriorityCluster(
        "nightly-embeddings",
        LowPriorityClusterArgs(
            tags=tags,
            resource_group_name=resource_group.name,
            location="eastus2",
            vm_size="Standard_NC4as_T4_v3",
            max_nodes=4,
        ),
    )
"""

from __future__ import annotations

from typing import Literal

import pulumi
import pulumi_azure_native as azure
from pydantic import Field, field_validator, model_validator

from gpufleet import tag_keys
from gpufleet.components.azure.names import compute_name, key_vault_name, storage_account_name
from gpufleet.components.azure.sizes import gpu_size
from gpufleet.components.component_args import ComponentArgs, StrInput
from gpufleet.components.tagging import RequiredTags
from gpufleet.planner.runs import AZURE_ML_IDLE_SECONDS
from gpufleet.pricing_models import HOURS_PER_MONTH


class LowPriorityClusterArgs(ComponentArgs):
    tags: RequiredTags
    resource_group_name: StrInput
    location: str = Field(min_length=2)
    vm_size: str
    max_nodes: int = Field(ge=1, le=1000)
    # Dedicated is for work the planner puts on pay-as-you-go nodes (not interruptible).
    vm_priority: Literal["LowPriority", "Dedicated"] = "LowPriority"
    min_nodes: int = Field(default=0, ge=0)
    idle_seconds_before_scale_down: int = Field(
        default=AZURE_ML_IDLE_SECONDS, ge=60, le=7 * 24 * 3600
    )
    workspace_name: StrInput | None = None
    subnet_id: StrInput | None = None
    ssh_public_key: str | None = None
    admin_username: str = "azureuser"
    # For the workspace it creates: reachable (with its storage) from public networks, and
    # whether its storage account takes shared keys (see the module docstring).
    workspace_public_network_access: bool = False
    storage_shared_key_access: bool = True
    # The cluster scales itself: from min_nodes (0) when idle to max_nodes for submitted jobs.
    # The plan's expected use of it (hours a month at max_nodes), for the cost engine.
    expected_hours: float | None = Field(default=None, ge=0, le=HOURS_PER_MONTH)
    # The runs a month the plan expects: each keeps the nodes for the idle time-out after it.
    expected_runs: int | None = Field(default=None, ge=0)

    @field_validator("vm_size")
    @classmethod
    def _gpu_size(cls, value: str) -> str:
        gpu_size(value)
        return value

    @field_validator("ssh_public_key")
    @classmethod
    def _ssh_key(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("ssh-rsa ", "ssh-ed25519 ", "ecdsa-sha2-")):
            raise ValueError(
                "is not an OpenSSH public key (ssh-rsa / ssh-ed25519 / ecdsa-sha2-...)"
            )
        return value

    @model_validator(mode="after")
    def _scale(self) -> LowPriorityClusterArgs:
        if self.min_nodes > self.max_nodes:
            raise ValueError(f"min_nodes ({self.min_nodes}) exceeds max_nodes ({self.max_nodes})")
        if self.workspace_name is not None and (
            self.workspace_public_network_access or not self.storage_shared_key_access
        ):
            raise ValueError(
                "workspace_public_network_access and storage_shared_key_access apply to the "
                "workspace the component creates, not to workspace_name's"
            )
        return self


def _iso_duration(seconds: int) -> str:
    return f"PT{seconds}S"


class LowPriorityCluster(pulumi.ComponentResource):
    compute_name: pulumi.Output[str]
    compute_id: pulumi.Output[str]
    workspace_name: pulumi.Output[str]
    principal_id: pulumi.Output[str | None]

    def __init__(
        self, name: str, args: LowPriorityClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:azure:LowPriorityCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = args.tags.as_tags()

        workspace_name = args.workspace_name
        if workspace_name is None:
            workspace_name = self._workspace(name, args, tags).name

        credentials = None
        if args.ssh_public_key is not None:
            credentials = azure.machinelearningservices.UserAccountCredentialsArgs(
                admin_user_name=args.admin_username,
                admin_user_ssh_public_key=args.ssh_public_key,
            )
        compute = azure.machinelearningservices.Compute(
            f"{name}-compute",
            compute_name=compute_name(name),
            resource_group_name=args.resource_group_name,
            workspace_name=workspace_name,
            location=args.location,
            identity=azure.machinelearningservices.ManagedServiceIdentityArgs(
                type="SystemAssigned"
            ),
            properties=azure.machinelearningservices.AmlComputeArgs(
                compute_type="AmlCompute",
                description=f"gpufleet {args.tags.workload}",
                disable_local_auth=True,
                properties=azure.machinelearningservices.AmlComputePropertiesArgs(
                    vm_size=args.vm_size,
                    vm_priority=args.vm_priority,
                    os_type="Linux",
                    enable_node_public_ip=False,
                    remote_login_port_public_access="Disabled",
                    user_account_credentials=credentials,
                    subnet=None
                    if args.subnet_id is None
                    else azure.machinelearningservices.ResourceIdArgs(id=args.subnet_id),
                    scale_settings=azure.machinelearningservices.ScaleSettingsArgs(
                        min_node_count=args.min_nodes,
                        max_node_count=args.max_nodes,
                        node_idle_time_before_scale_down=_iso_duration(
                            args.idle_seconds_before_scale_down
                        ),
                    ),
                ),
            ),
            tags={**tags, **_expected_use(args.expected_hours, args.expected_runs)},
            opts=child,
        )

        self.compute_name = compute.name
        self.compute_id = compute.id
        self.workspace_name = pulumi.Output.from_input(workspace_name)
        self.principal_id = compute.identity.apply(lambda i: i.principal_id if i else None)
        self.register_outputs(
            {
                "compute_name": compute.name,
                "compute_id": compute.id,
                "workspace_name": self.workspace_name,
                "principal_id": self.principal_id,
                "max_nodes": args.max_nodes,
                "gpus_per_node": gpu_size(args.vm_size).gpu_count,
            }
        )

    def _workspace(
        self, name: str, args: LowPriorityClusterArgs, tags: dict[str, str]
    ) -> azure.machinelearningservices.Workspace:
        child = pulumi.ResourceOptions(parent=self)
        common = {"resource_group_name": args.resource_group_name, "location": args.location}
        client = azure.authorization.get_client_config_output(
            opts=pulumi.InvokeOutputOptions(parent=self)
        )
        public = _public_network_access(args.workspace_public_network_access)
        storage = azure.storage.StorageAccount(
            f"{name}-storage",
            account_name=storage_account_name(name),
            kind="StorageV2",
            # Geo-redundant: the workspace's code, logs and outputs survive a regional outage.
            sku=azure.storage.SkuArgs(name="Standard_GRS"),
            public_network_access=public,
            allow_blob_public_access=False,
            allow_shared_key_access=args.storage_shared_key_access,
            minimum_tls_version="TLS1_2",
            enable_https_traffic_only=True,
            tags=tags,
            opts=child,
            **common,
        )
        vault = azure.keyvault.Vault(
            f"{name}-vault",
            vault_name=key_vault_name(name),
            properties=azure.keyvault.VaultPropertiesArgs(
                tenant_id=client.tenant_id,
                sku=azure.keyvault.SkuArgs(family="A", name=azure.keyvault.SkuName.STANDARD),
                enable_rbac_authorization=True,
                enable_soft_delete=True,
                enable_purge_protection=True,
                # Only the workspace uses the vault: through its managed network's private
                # endpoint, or as a trusted Azure service. Nobody needs it from the internet.
                public_network_access=_public_network_access(False),
                network_acls=azure.keyvault.NetworkRuleSetArgs(
                    default_action=azure.keyvault.NetworkRuleAction.DENY,
                    bypass=azure.keyvault.NetworkRuleBypassOptions.AZURE_SERVICES,
                ),
            ),
            tags=tags,
            opts=child,
            **common,
        )
        logs = azure.operationalinsights.Workspace(
            f"{name}-logs",
            sku=azure.operationalinsights.WorkspaceSkuArgs(name="PerGB2018"),
            retention_in_days=30,
            tags=tags,
            opts=child,
            **common,
        )
        insights = azure.applicationinsights.Component(
            f"{name}-insights",
            kind="web",
            application_type="web",
            ingestion_mode="LogAnalytics",
            workspace_resource_id=logs.id,
            tags=tags,
            opts=child,
            **common,
        )
        return azure.machinelearningservices.Workspace(
            f"{name}-workspace",
            storage_account=storage.id,
            key_vault=vault.id,
            application_insights=insights.id,
            identity=azure.machinelearningservices.ManagedServiceIdentityArgs(
                type="SystemAssigned"
            ),
            managed_network=azure.machinelearningservices.ManagedNetworkSettingsArgs(
                isolation_mode="AllowInternetOutbound"
            ),
            public_network_access=public,
            # Storage without shared keys: the workspace's own datastores by identity too.
            system_datastores_auth_mode=None
            if args.storage_shared_key_access
            else azure.machinelearningservices.SystemDatastoresAuthMode.IDENTITY,
            sku=azure.machinelearningservices.SkuArgs(
                name="Basic", tier=azure.machinelearningservices.SkuTier.BASIC
            ),
            tags=tags,
            opts=child,
            **common,
        )


def _public_network_access(enabled: bool) -> str:
    """Azure's spelling of whether a resource takes requests from public networks."""
    return "Enabled" if enabled else "Disabled"


def _expected_use(hours: float | None, runs: int | None) -> dict[str, str]:
    found = {} if hours is None else {tag_keys.EXPECTED_MINUTES: str(round(hours * 60))}
    if runs is not None:
        found[tag_keys.EXPECTED_RUNS] = str(runs)
    return found

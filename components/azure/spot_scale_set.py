"""SpotScaleSet: Azure Spot GPU VMs in a virtual machine scale set.

``azure_native.compute.VirtualMachineScaleSet`` with ``priority=Spot``, an ``eviction_policy``
(``Delete`` by default: evicted workers free their disks and quota; ``Deallocate`` keeps them
to restart later, and keeps paying for the disks) and ``billing_profile.max_price`` (``-1``,
the default, means "up to the on-demand price": VMs are evicted only for capacity, never for
price). Scheduled Events terminate notifications are on, so jobs see the eviction notice. GPU
sizes from the catalog (NC A100 v4, NC H100 v5, ND H100 v5, NCasT4 v3, ...). An optional
proximity placement group keeps the VMs close for multi-node jobs.

Secure defaults: no public IP on any NIC, password login disabled (an SSH public key is
required by Azure for Linux even when no port is open), accelerated networking, managed disks
(encrypted at rest by Azure; pass ``disk_encryption_set_id`` for customer-managed keys), tags
on every resource. Encryption at host is on (Checkov CKV_AZURE_97): temp disks and disk caches,
which server-side encryption does not cover, are encrypted on the host too. Azure allows it once
the subscription has registered the ``Microsoft.Compute/EncryptionAtHost`` feature (``az feature
register --namespace Microsoft.Compute --name EncryptionAtHost``), and on sizes that support it;
``encryption_at_host=False`` is for a subscription or size that cannot.

Reserved capacity: given ``capacity_reservation_group_id`` (a ``CapacityReservationGroup``),
the set's VMs run in that group's reservations, which pay for them; Azure allows that for
Regular (pay-as-you-go) VMs only, without a proximity placement group, in as many fault
domains as the reservation (the set takes one), and for a regional group only for a set
without zones.

Example::

    from gpufleet.components.azure.spot_scale_set import SpotScaleSet, SpotScaleSetArgs

    workers = SpotScaleSet(
        "finetune-workers",
        SpotScaleSetArgs(
            tags=tags,
            resource_group_name=resource_group.name,
            location="eastus",
            vm_size="Standard_NC24ads_A100_v4",
            instances=2,
            subnet_id=subnet.id,
            ssh_public_key="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGpufleetexamplekey ops@acme",
        ),
    )
"""

from __future__ import annotations

import base64
from typing import Literal

import pulumi
import pulumi_azure_native as azure
from pydantic import Field, field_validator, model_validator

from gpufleet.components.azure.group_scaling import autoscale_setting
from gpufleet.components.azure.names import computer_name_prefix
from gpufleet.components.azure.sizes import gpu_size
from gpufleet.components.component_args import ComponentArgs, StrInput
from gpufleet.components.scaling import Scaling
from gpufleet.components.tagging import RequiredTags

# Canonical's Ubuntu + NVIDIA drivers via the Azure HPC image (microsoft-dsvm:ubuntu-hpc).
DEFAULT_IMAGE = {
    "publisher": "microsoft-dsvm",
    "offer": "ubuntu-hpc",
    "sku": "2204",
    "version": "latest",
}
ON_DEMAND_CAP = -1.0
# Boot text whose base64 fits customData's 65,535 characters.
CUSTOM_DATA_LIMIT = 65_535 // 4 * 3


class SpotScaleSetArgs(ComponentArgs):
    tags: RequiredTags
    resource_group_name: StrInput
    location: str = Field(min_length=2)
    vm_size: str
    instances: int = Field(ge=0, le=1000)
    subnet_id: StrInput
    ssh_public_key: str
    admin_username: str = "azureuser"
    eviction_policy: Literal["Deallocate", "Delete"] = "Delete"
    # Regular is for work the planner puts on pay-as-you-go VMs (not interruptible); eviction
    # and max price then do not apply.
    priority: Literal["Spot", "Regular"] = "Spot"
    max_price: float = ON_DEMAND_CAP
    zones: list[Literal["1", "2", "3"]] = Field(default_factory=list)
    proximity_placement_group: bool = False
    image: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_IMAGE))
    os_disk_gib: int = Field(default=256, ge=30, le=4095)
    disk_encryption_set_id: StrInput | None = None
    encryption_at_host: bool = True
    network_security_group_id: StrInput | None = None
    # Boot text (cloud-init runs it), sent base64-encoded as the API takes it.
    custom_data: str | None = Field(default=None, max_length=CUSTOM_DATA_LIMIT)
    # The capacity reservation group its VMs run in (always-on capacity held for it).
    capacity_reservation_group_id: StrInput | None = None
    # How the set's capacity changes: fixed at instances, or (with an autoscale setting) on
    # request, on load or on a schedule between zero and instances.
    scaling: Scaling = Field(default_factory=Scaling)
    # on_load: the always-on scale set whose load (average CPU) sizes this burst.
    base_scale_set_id: StrInput | None = None

    @field_validator("vm_size")
    @classmethod
    def _gpu_size(cls, value: str) -> str:
        gpu_size(value)
        return value

    @field_validator("max_price")
    @classmethod
    def _max_price(cls, value: float) -> float:
        if value != ON_DEMAND_CAP and value <= 0:
            raise ValueError("is -1 (up to the on-demand price) or a price above 0 $/hour")
        return value

    @field_validator("ssh_public_key")
    @classmethod
    def _ssh_key(cls, value: str) -> str:
        if not value.startswith(("ssh-rsa ", "ssh-ed25519 ", "ecdsa-sha2-")):
            raise ValueError(
                "is not an OpenSSH public key (ssh-rsa / ssh-ed25519 / ecdsa-sha2-...)"
            )
        return value

    @field_validator("image")
    @classmethod
    def _image(cls, value: dict[str, str]) -> dict[str, str]:
        if "id" not in value and not {"publisher", "offer", "sku", "version"} <= set(value):
            raise ValueError("needs publisher, offer, sku and version, or an image id")
        return value

    @model_validator(mode="after")
    def _reservation(self) -> SpotScaleSetArgs:
        if (self.scaling.mode == "on_load") != (self.base_scale_set_id is not None):
            raise ValueError(
                "scaling on_load and base_scale_set_id go together: a burst scales on its "
                "always-on base's load (a set at zero has no load of its own)"
            )
        if self.capacity_reservation_group_id is not None and self.priority != "Regular":
            raise ValueError(
                "capacity_reservation_group_id needs priority Regular: Azure runs no Spot VMs "
                "in a capacity reservation"
            )
        if self.capacity_reservation_group_id is not None and self.proximity_placement_group:
            raise ValueError(
                "capacity_reservation_group_id cannot go with a proximity placement group"
            )
        return self


class SpotScaleSet(pulumi.ComponentResource):
    scale_set_id: pulumi.Output[str]
    scale_set_name: pulumi.Output[str]
    proximity_placement_group_id: pulumi.Output[str] | None

    def __init__(
        self, name: str, args: SpotScaleSetArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:azure:SpotScaleSet", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = args.tags.as_tags()

        placement = None
        if args.proximity_placement_group:
            placement = azure.compute.ProximityPlacementGroup(
                f"{name}-ppg",
                resource_group_name=args.resource_group_name,
                location=args.location,
                proximity_placement_group_type="Standard",
                zones=args.zones or None,
                tags=tags,
                opts=child,
            )
        nic = azure.compute.VirtualMachineScaleSetNetworkConfigurationArgs(
            name=f"{name}-nic",
            primary=True,
            enable_accelerated_networking=True,
            network_security_group=None
            if args.network_security_group_id is None
            else azure.compute.SubResourceArgs(id=args.network_security_group_id),
            ip_configurations=[
                # No public_ip_address_configuration: no public IP.
                azure.compute.VirtualMachineScaleSetIPConfigurationArgs(
                    name=f"{name}-ip",
                    primary=True,
                    subnet=azure.compute.ApiEntityReferenceArgs(id=args.subnet_id),
                )
            ],
        )
        scale_set = azure.compute.VirtualMachineScaleSet(
            f"{name}-vmss",
            resource_group_name=args.resource_group_name,
            location=args.location,
            sku=azure.compute.SkuArgs(
                name=args.vm_size,
                # A set that scales starts empty; then its autoscale setting (or a run) sizes it.
                capacity=args.scaling.initial_size(args.instances),
                tier="Standard",
            ),
            orchestration_mode="Uniform",
            # A capacity reservation holds VMs in fewer fault domains than a regional set's
            # default of five: one keeps the set inside what the reservation holds.
            platform_fault_domain_count=None if args.capacity_reservation_group_id is None else 1,
            overprovision=False,
            single_placement_group=False,
            zones=args.zones or None,
            proximity_placement_group=None
            if placement is None
            else azure.compute.SubResourceArgs(id=placement.id),
            upgrade_policy=azure.compute.UpgradePolicyArgs(mode=azure.compute.UpgradeMode.MANUAL),
            virtual_machine_profile=azure.compute.VirtualMachineScaleSetVMProfileArgs(
                priority=args.priority,
                security_profile=azure.compute.SecurityProfileArgs(
                    encryption_at_host=args.encryption_at_host
                ),
                capacity_reservation=None
                if args.capacity_reservation_group_id is None
                else azure.compute.CapacityReservationProfileArgs(
                    capacity_reservation_group=azure.compute.SubResourceArgs(
                        id=args.capacity_reservation_group_id
                    )
                ),
                eviction_policy=args.eviction_policy if args.priority == "Spot" else None,
                billing_profile=azure.compute.BillingProfileArgs(max_price=args.max_price)
                if args.priority == "Spot"
                else None,
                scheduled_events_profile=azure.compute.ScheduledEventsProfileArgs(
                    terminate_notification_profile=azure.compute.TerminateNotificationProfileArgs(
                        enable=True, not_before_timeout="PT5M"
                    )
                ),
                os_profile=azure.compute.VirtualMachineScaleSetOSProfileArgs(
                    computer_name_prefix=computer_name_prefix(name),
                    admin_username=args.admin_username,
                    custom_data=None
                    if args.custom_data is None
                    else base64.b64encode(args.custom_data.encode()).decode(),
                    linux_configuration=azure.compute.LinuxConfigurationArgs(
                        disable_password_authentication=True,
                        ssh=azure.compute.SshConfigurationArgs(
                            public_keys=[
                                azure.compute.SshPublicKeyArgs(
                                    path=f"/home/{args.admin_username}/.ssh/authorized_keys",
                                    key_data=args.ssh_public_key,
                                )
                            ]
                        ),
                    ),
                ),
                storage_profile=azure.compute.VirtualMachineScaleSetStorageProfileArgs(
                    image_reference=azure.compute.ImageReferenceArgs(**args.image),
                    os_disk=azure.compute.VirtualMachineScaleSetOSDiskArgs(
                        create_option="FromImage",
                        caching=azure.compute.CachingTypes.READ_WRITE,
                        disk_size_gb=args.os_disk_gib,
                        delete_option="Delete",
                        managed_disk=azure.compute.VirtualMachineScaleSetManagedDiskParametersArgs(
                            storage_account_type="StandardSSD_LRS",
                            disk_encryption_set=None
                            if args.disk_encryption_set_id is None
                            else azure.compute.DiskEncryptionSetParametersArgs(
                                id=args.disk_encryption_set_id
                            ),
                        ),
                    ),
                ),
                network_profile=azure.compute.VirtualMachineScaleSetNetworkProfileArgs(
                    network_interface_configurations=[nic]
                ),
            ),
            tags={**tags, **args.scaling.expected_tags()},
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=["sku.capacity"])
            if args.scaling.scales
            else child,
        )
        if args.scaling.scales:
            autoscale_setting(
                name,
                scale_set.id,
                args.instances,
                args.scaling,
                base_scale_set_id=args.base_scale_set_id,
                resource_group_name=args.resource_group_name,
                location=args.location,
                tags=tags,
                parent=self,
            )

        self.scale_set_id = scale_set.id
        self.scale_set_name = scale_set.name
        self.proximity_placement_group_id = placement.id if placement else None
        self.register_outputs(
            {
                "scale_set_id": scale_set.id,
                "scale_set_name": scale_set.name,
                "proximity_placement_group_id": self.proximity_placement_group_id,
                "instances": args.instances,
                "gpus_per_vm": gpu_size(args.vm_size).gpu_count,
            }
        )

"""Honest: a tagged scale set of 2 x Standard_NC4as_T4_v3 (one T4 each), no public IPs, that an
autoscale setting keeps between 1 and 3: 3 T4s."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

scale_set = azure.compute.VirtualMachineScaleSet(
    NAME,
    resource_group_name="ml",
    location="eastus2",
    vm_scale_set_name="t4-infer",
    sku={"name": "Standard_NC4as_T4_v3", "tier": "Standard", "capacity": 2},
    orchestration_mode="Uniform",
    upgrade_policy={"mode": azure.compute.UpgradeMode.ROLLING},
    virtual_machine_profile={
        "os_profile": {
            "computer_name_prefix": "t4",
            "admin_username": "azureuser",
            "linux_configuration": {"disable_password_authentication": True},
        },
        "storage_profile": {
            "image_reference": {
                "publisher": "microsoft-dsvm",
                "offer": "ubuntu-hpc",
                "sku": "2204",
                "version": "latest",
            }
        },
        "network_profile": {
            "network_interface_configurations": [
                {
                    "name": "nic",
                    "primary": True,
                    "ip_configurations": [
                        {
                            "name": "ip",
                            "subnet": {
                                "id": "/subscriptions/0000/resourceGroups/ml/providers/"
                                "Microsoft.Network/virtualNetworks/ml/subnets/gpu"
                            },
                        }
                    ],
                }
            ]
        },
    },
    tags=TAGS,
)
azure.monitor.AutoscaleSetting(
    f"{NAME}-autoscale",
    resource_group_name="ml",
    location="eastus2",
    enabled=True,
    target_resource_uri=scale_set.id,
    profiles=[
        {
            "name": "default",
            "capacity": {"minimum": "1", "maximum": "3", "default": "2"},
            "rules": [],
        }
    ],
    tags=TAGS,
)

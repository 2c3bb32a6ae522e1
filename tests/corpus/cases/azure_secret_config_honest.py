"""Honest: secret config of every type (secure: values nothing offline decrypts) — a string
admin password on a T4 VM, an int max count, a bool and a float on a CPU node pool, and an
object holding a secret subnet id."""

import pulumi
import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

config = pulumi.Config()
network = config.require_secret_object("network")
azure.compute.VirtualMachine(
    NAME,
    resource_group_name="ml",
    location="eastus2",
    hardware_profile={"vm_size": "Standard_NC4as_T4_v3"},
    os_profile={
        "computer_name": "t4dev",
        "admin_username": "azureuser",
        "admin_password": config.require_secret("adminPassword"),
    },
    storage_profile={
        "image_reference": {
            "publisher": "Canonical",
            "offer": "ubuntu-24_04-lts",
            "sku": "server",
            "version": "latest",
        }
    },
    network_profile={
        "network_interfaces": [
            {
                "id": "/subscriptions/0000/resourceGroups/ml/providers/"
                "Microsoft.Network/networkInterfaces/t4dev"
            }
        ]
    },
    tags=TAGS,
)
azure.containerservice.AgentPool(
    f"{NAME}-cpu",
    resource_group_name="ml",
    resource_name_="ml-aks",
    agent_pool_name="cpu",
    mode="User",
    vm_size="Standard_D8s_v5",
    count=1,
    min_count=1,
    max_count=config.require_secret_int("cpuMaxNodes"),
    enable_auto_scaling=config.require_secret_bool("cpuAutoscale"),
    scale_set_priority="Spot",
    spot_max_price=config.require_secret_float("spotMaxPrice"),
    vnet_subnet_id=network.apply(lambda n: n["subnetId"]),
    tags=TAGS,
)

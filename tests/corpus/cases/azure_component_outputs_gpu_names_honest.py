"""Honest: a component of the program that registers outputs naming GPU sizes (a catalog of
what teams may ask for) and stack exports naming them: outputs are not capacity."""

import pulumi
import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()


class GpuOffer(pulumi.ComponentResource):
    """What the platform team offers: the sizes, and a resource group to ask in."""

    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("acme:platform:GpuOffer", name, None, opts)
        group = azure.resources.ResourceGroup(
            f"{name}-rg", location="eastus2", tags=TAGS, opts=pulumi.ResourceOptions(parent=self)
        )
        self.vm_size = pulumi.Output.from_input("Standard_ND96asr_v4")
        self.register_outputs(
            {
                "vmSize": "Standard_ND96asr_v4",
                "sku": {"name": "Standard_NC24ads_A100_v4", "capacity": 40},
                "allowed": ["Standard_ND96isr_H100_v5", "Standard_NC40ads_H100_v5"],
                "resourceGroup": group.name,
            }
        )


offer = GpuOffer(NAME)
pulumi.export(f"{NAME}-vmSize", offer.vm_size)
pulumi.export(
    f"{NAME}-pool",
    {"vmSize": "Standard_ND96asr_v4", "nodeCount": 32, "machine_type": "a3-highgpu-8g"},
)

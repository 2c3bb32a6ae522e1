"""An Azure container group asking for 4 V100s: GPUs gpufleet reads no size of."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

azure.containerinstance.ContainerGroup(
    NAME,
    resource_group_name="ml",
    os_type="Linux",
    containers=[
        {
            "name": "train",
            "image": "acme/train:1",
            "resources": {
                "requests": {"cpu": 6, "memory_in_gb": 24, "gpu": {"count": 4, "sku": "V100"}}
            },
        }
    ],
    tags=TAGS,
)

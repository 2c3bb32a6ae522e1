"""A Synapse Spark pool of XLarge GPU nodes that autoscales to 5 nodes: 4 GPUs a node, 20 GPUs,
at Synapse's own rates (not in the catalog)."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size", "gpu-budget"}

azure.synapse.BigDataPool(
    NAME,
    resource_group_name="ml",
    workspace_name="analytics",
    location="eastus",
    node_size_family="HardwareAcceleratedGPU",
    node_size="XLarge",
    spark_version="3.2",
    auto_scale={"enabled": True, "min_node_count": 3, "max_node_count": 5},
    auto_pause={"enabled": True, "delay_in_minutes": 15},
    tags=TAGS,
)

"""A Synapse Spark pool of 20 Large GPU nodes (one GPU each) without autoscale: 20 GPUs when a
session starts, at Synapse's own rates (not in the catalog)."""

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
    node_size="Large",
    node_count=20,
    spark_version="3.2",
    auto_pause={"enabled": True, "delay_in_minutes": 10},
    tags=TAGS,
)

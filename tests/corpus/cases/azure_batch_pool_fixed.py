"""An Azure Batch pool of 1 dedicated and 2 Spot Standard_ND96asr_v4: 24 A100s."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

azure.batch.Pool(
    NAME,
    resource_group_name="ml",
    account_name="mlbatch",
    tags=TAGS,
    vm_size="STANDARD_ND96ASR_V4",
    scale_settings={"fixed_scale": {"target_dedicated_nodes": 1, "target_low_priority_nodes": 2}},
)

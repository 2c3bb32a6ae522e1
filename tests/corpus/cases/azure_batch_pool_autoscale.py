"""An Azure Batch pool of NC6s_v3 sized by an autoscale formula gpufleet does not read."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

azure.batch.Pool(
    NAME,
    resource_group_name="ml",
    account_name="mlbatch",
    tags=TAGS,
    vm_size="Standard_NC6s_v3",
    scale_settings={
        "auto_scale": {"formula": "$TargetDedicatedNodes = max(0, $PendingTasks.GetSample(1));"}
    },
)

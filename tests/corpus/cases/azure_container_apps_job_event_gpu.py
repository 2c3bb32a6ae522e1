"""An event-driven Container Apps job on a serverless T4 profile: up to 20 executions at once,
2 replicas each, a T4 per replica: 40 T4s."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size", "gpu-budget"}

environment = azure.app.ManagedEnvironment(
    f"{NAME}-env",
    resource_group_name="ml",
    location="westus3",
    workload_profiles=[
        {"name": "Consumption", "workload_profile_type": "Consumption"},
        {"name": "t4", "workload_profile_type": "Consumption-GPU-NC8as-T4"},
    ],
    tags=TAGS,
)
azure.app.Job(
    NAME,
    resource_group_name="ml",
    location="westus3",
    environment_id=environment.id,
    workload_profile_name="T4",
    configuration={
        "trigger_type": "Event",
        "replica_timeout": 3600,
        "event_trigger_config": {
            "parallelism": 2,
            "replica_completion_count": 2,
            "scale": {
                "min_executions": 0,
                "max_executions": 20,
                "rules": [
                    {
                        "name": "queue",
                        "type": "azure-queue",
                        "metadata": {"queueName": "transcribe", "queueLength": "1"},
                    }
                ],
            },
        },
    },
    template={"containers": [{"name": "whisper", "image": "acme.azurecr.io/whisper:3"}]},
    tags=TAGS,
)

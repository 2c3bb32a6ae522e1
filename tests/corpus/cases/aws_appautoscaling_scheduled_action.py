"""A SageMaker endpoint's scalable target held to 2 x ml.g5.12xlarge (8 A10Gs), and a scheduled
action that lets it reach 10 every morning: 40 A10Gs."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

config = aws.sagemaker.EndpointConfiguration(
    NAME,
    production_variants=[
        {
            "variant_name": "main",
            "model_name": "m",
            "instance_type": "ml.g5.12xlarge",
            "initial_instance_count": 1,
        }
    ],
    tags=TAGS,
)
endpoint = aws.sagemaker.Endpoint(
    f"{NAME}-endpoint", name=NAME, endpoint_config_name=config.name, tags=TAGS
)
target = aws.appautoscaling.Target(
    f"{NAME}-target",
    service_namespace="sagemaker",
    scalable_dimension="sagemaker:variant:DesiredInstanceCount",
    resource_id=f"endpoint/{NAME}/variant/main",
    min_capacity=1,
    max_capacity=2,
    tags=TAGS,
)
aws.appautoscaling.ScheduledAction(
    f"{NAME}-morning",
    service_namespace=target.service_namespace,
    scalable_dimension=target.scalable_dimension,
    resource_id=target.resource_id,
    schedule="cron(0 8 * * ? *)",
    scalable_target_action={"min_capacity": 1, "max_capacity": 10},
)

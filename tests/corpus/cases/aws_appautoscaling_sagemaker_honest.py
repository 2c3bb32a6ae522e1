"""Honest: an endpoint variant of ml.g5.2xlarge (one A10G) that Application Auto Scaling keeps
between 1 and 4 instances: 4 GPUs at most, within the dev limits."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

config = aws.sagemaker.EndpointConfiguration(
    f"{NAME}-config",
    production_variants=[
        {
            "variant_name": "AllTraffic",
            "model_name": "embedder",
            "instance_type": "ml.g5.2xlarge",
            "initial_instance_count": 1,
        }
    ],
    tags=TAGS,
)
endpoint = aws.sagemaker.Endpoint(
    NAME, name="embedder-dev", endpoint_config_name=config.name, tags=TAGS
)
target = aws.appautoscaling.Target(
    f"{NAME}-target",
    service_namespace="sagemaker",
    scalable_dimension="sagemaker:variant:DesiredInstanceCount",
    resource_id=endpoint.name.apply(lambda n: f"endpoint/{n}/variant/AllTraffic"),
    min_capacity=1,
    max_capacity=4,
    tags=TAGS,
)
aws.appautoscaling.Policy(
    f"{NAME}-invocations",
    policy_type="TargetTrackingScaling",
    resource_id=target.resource_id,
    scalable_dimension=target.scalable_dimension,
    service_namespace=target.service_namespace,
    target_tracking_scaling_policy_configuration={
        "target_value": 70,
        "predefined_metric_specification": {
            "predefined_metric_type": "SageMakerVariantInvocationsPerInstance"
        },
    },
)

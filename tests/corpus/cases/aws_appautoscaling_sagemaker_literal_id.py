"""A SageMaker endpoint named in the program, and an Application Auto Scaling target that names
its variant by a literal resource id (no Output, so no dependency) and lets it run 6 x
ml.g5.12xlarge: 24 A10Gs."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

config = aws.sagemaker.EndpointConfiguration(
    f"{NAME}-config",
    production_variants=[
        {
            "variant_name": "blue",
            "model_name": "llama-ft",
            "instance_type": "ml.g5.12xlarge",
            "initial_instance_count": 1,
        }
    ],
    tags=TAGS,
)
aws.sagemaker.Endpoint(NAME, name="chat-prod", endpoint_config_name=config.name, tags=TAGS)
aws.appautoscaling.Target(
    f"{NAME}-target",
    service_namespace="sagemaker",
    scalable_dimension="sagemaker:variant:DesiredInstanceCount",
    resource_id="endpoint/chat-prod/variant/blue",
    min_capacity=1,
    max_capacity=6,
    tags=TAGS,
)

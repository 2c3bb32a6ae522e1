"""One ml.g5.12xlarge behind a SageMaker endpoint (4 A10Gs) that Application Auto Scaling takes
to 8 instances: 32 A10Gs."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

config = aws.sagemaker.EndpointConfiguration(
    NAME,
    production_variants=[
        {
            "variant_name": "AllTraffic",
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
aws.appautoscaling.Target(
    f"{NAME}-target",
    service_namespace="sagemaker",
    scalable_dimension="sagemaker:variant:DesiredInstanceCount",
    resource_id=endpoint.name.apply(lambda name: f"endpoint/{name}/variant/AllTraffic"),
    min_capacity=1,
    max_capacity=8,
    tags=TAGS,
)

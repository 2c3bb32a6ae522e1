"""A serverless SageMaker endpoint: no GPUs, passes."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

aws.sagemaker.EndpointConfiguration(
    NAME,
    production_variants=[
        {
            "variant_name": "main",
            "model_name": "m",
            "serverless_config": {"max_concurrency": 5, "memory_size_in_mb": 2048},
        }
    ],
    tags=TAGS,
)

"""A SageMaker endpoint configuration: 2 x ml.p4d.24xlarge and a shadow variant of 1 more: 24
A100s.
"""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

aws.sagemaker.EndpointConfiguration(
    NAME,
    production_variants=[
        {
            "variant_name": "main",
            "model_name": "m",
            "instance_type": "ml.p4d.24xlarge",
            "initial_instance_count": 2,
        },
    ],
    shadow_production_variants=[
        {
            "variant_name": "shadow",
            "model_name": "m2",
            "instance_type": "ml.p4d.24xlarge",
            "initial_instance_count": 1,
        },
    ],
    tags=TAGS,
)

"""A SageMaker endpoint variant of one ml.g5.48xlarge whose managed scaling goes to 4: 32 A10Gs."""

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
            "instance_type": "ml.g5.48xlarge",
            "initial_instance_count": 1,
            "managed_instance_scaling": {
                "status": "ENABLED",
                "min_instance_count": 1,
                "max_instance_count": 4,
            },
        }
    ],
    tags=TAGS,
)

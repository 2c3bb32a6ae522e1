"""A data pipeline whose objects name their machine in key/value pairs."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

pipeline = aws.datapipeline.Pipeline(f"{NAME}-pipeline", name="p", tags=TAGS)
aws.datapipeline.PipelineDefinition(
    NAME,
    pipeline_id=pipeline.id,
    pipeline_objects=[
        {
            "id": "Ec2",
            "name": "Ec2",
            "fields": [
                {"key": "type", "string_value": "Ec2Resource"},
                {"key": "instanceType", "string_value": "p5.48xlarge"},
            ],
        }
    ],
)

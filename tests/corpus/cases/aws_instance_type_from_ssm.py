"""An EC2 instance whose type is read from an SSM parameter (an invoke): its size cannot be known
offline.
"""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

gpu_type = aws.ssm.get_parameter(name="/ml/training/instance-type").value
aws.ec2.Instance(
    NAME,
    ami="ami-0aaaaaaaaaaaaaaaa",
    instance_type=gpu_type,
    metadata_options={"http_tokens": "required"},
    tags=TAGS,
)

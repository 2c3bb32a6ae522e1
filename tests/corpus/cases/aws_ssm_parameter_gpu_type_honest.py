"""Honest: SSM parameters holding GPU machine type names as plain values (what a training job
started elsewhere will read) and a StringList of allowed types hold no machines."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

aws.ssm.Parameter(
    NAME,
    name="/ml/training/instance-type",
    type="String",
    value="p5.48xlarge",
    description="instance type the nightly training job asks SageMaker for",
    tags=TAGS,
)
aws.ssm.Parameter(
    f"{NAME}-allowed",
    name="/ml/training/allowed-instance-types",
    type="StringList",
    value="g5.12xlarge,p4d.24xlarge,p5.48xlarge",
    tags=TAGS,
)

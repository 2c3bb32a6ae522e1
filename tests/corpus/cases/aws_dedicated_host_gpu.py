"""A dedicated host for p3dn.24xlarge instances."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

aws.ec2.DedicatedHost(
    NAME,
    availability_zone="us-east-1a",
    instance_type="p3dn.24xlarge",
    tags=TAGS,
)

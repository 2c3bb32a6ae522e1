"""An AppStream fleet of stream.graphics.g4dn.xlarge: GPUs of a service type, unpriced."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

aws.appstream.Fleet(
    NAME,
    instance_type="stream.graphics.g4dn.xlarge",
    compute_capacity={"desired_instances": 20},
    tags=TAGS,
)

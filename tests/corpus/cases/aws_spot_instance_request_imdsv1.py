"""A g5.xlarge spot instance request that allows IMDSv1 and has a public IP."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"imdsv2-required", "gpu-no-public-ip"}

aws.ec2.SpotInstanceRequest(
    NAME,
    ami="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g5.xlarge",
    associate_public_ip_address=True,
    tags=TAGS,
)

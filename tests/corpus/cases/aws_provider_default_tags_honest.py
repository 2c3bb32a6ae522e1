"""Honest: a g5.xlarge instance with no tags of its own, on an explicit provider whose
default_tags hold the cost tags."""

import pulumi
import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

tagged = aws.Provider(f"{NAME}-provider", region="us-east-1", default_tags={"tags": TAGS})
aws.ec2.Instance(
    NAME,
    ami="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g5.xlarge",
    subnet_id="subnet-0aaaaaaaaaaaaaaaa",
    associate_public_ip_address=False,
    metadata_options={"http_tokens": "required"},
    opts=pulumi.ResourceOptions(provider=tagged),
)

"""A g5.xlarge instance carrying every cost tag itself, on a provider that ignores tag keys
starting with "cost" and "env": those two the provider never sets."""

import pulumi
import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

provider = aws.Provider(
    f"{NAME}-provider", region="us-east-1", ignore_tags={"key_prefixes": ["cost", "env"]}
)
aws.ec2.Instance(
    NAME,
    ami="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g5.xlarge",
    subnet_id="subnet-0aaaaaaaaaaaaaaaa",
    metadata_options={"http_tokens": "required"},
    tags=TAGS,
    opts=pulumi.ResourceOptions(provider=provider),
)

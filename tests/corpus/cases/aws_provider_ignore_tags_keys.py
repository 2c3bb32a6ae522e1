"""A g5.xlarge instance tagged by its provider's default_tags, on a provider that ignores the
owner and cost-center keys: the provider does not manage them, so nothing sets them."""

import pulumi
import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

provider = aws.Provider(
    f"{NAME}-provider",
    region="us-east-1",
    default_tags={"tags": TAGS},
    ignore_tags={"keys": ["owner", "cost-center"]},
)
aws.ec2.Instance(
    NAME,
    ami="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g5.xlarge",
    subnet_id="subnet-0aaaaaaaaaaaaaaaa",
    metadata_options={"http_tokens": "required"},
    opts=pulumi.ResourceOptions(provider=provider),
)

"""A p3.2xlarge spot instance request with no tags."""

import pulumi_aws as aws

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

aws.ec2.SpotInstanceRequest(
    NAME,
    ami="ami-0aaaaaaaaaaaaaaaa",
    instance_type="p3.2xlarge",
    metadata_options={"http_tokens": "required"},
)

"""Cost tags whose values are invisible characters (zero-width space, no-break space)."""

import pulumi_aws as aws

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

aws.ec2.Instance(
    NAME,
    instance_type="g6.xlarge",
    ami="ami-0aaaaaaaaaaaaaaaa",
    metadata_options={"http_tokens": "required"},
    tags={"project": "\u200b", "owner": "\u00a0", "cost-center": "\u2060", "environment": "\ufeff"},
)

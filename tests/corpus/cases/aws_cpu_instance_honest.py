"""A tagged CPU instance with IMDSv2: passes."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

aws.ec2.Instance(
    NAME,
    ami="ami-0aaaaaaaaaaaaaaaa",
    instance_type="m7i.large",
    metadata_options={"http_tokens": "required"},
    tags=TAGS,
)

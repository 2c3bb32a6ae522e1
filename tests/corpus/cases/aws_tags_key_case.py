"""A GPU instance tagged Project / Owner / Cost-Center / Environment: AWS tag keys are case
sensitive, so the cost tags (project, owner, cost-center, environment) are missing."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

aws.ec2.Instance(
    NAME,
    ami="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g5.xlarge",
    subnet_id="subnet-0aaaaaaaaaaaaaaaa",
    metadata_options={"http_tokens": "required"},
    tags={key.title(): value for key, value in TAGS.items()},
)

"""Honest: secret values of several input types flow through — a secret bucket name, a secret
tag value on a GPU instance, a secret max size (an int) on a CPU group, a secret list of
security groups and a secret bool."""

import pulumi
import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

aws.s3.BucketV2(
    NAME,
    bucket=pulumi.Output.secret("acme-ml-artifacts-dev"),
    force_destroy=pulumi.Output.secret(True),
    tags=TAGS,
)
aws.ec2.Instance(
    f"{NAME}-l4",
    ami="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g6.xlarge",
    subnet_id="subnet-0aaaaaaaaaaaaaaaa",
    vpc_security_group_ids=pulumi.Output.secret(["sg-0aaaaaaaaaaaaaaaa"]),
    metadata_options={"http_tokens": "required"},
    tags={**TAGS, "owner": pulumi.Output.secret("ml@acme.example")},
)
template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="m7i.large",
    metadata_options={"http_tokens": "required"},
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
)
aws.autoscaling.Group(
    f"{NAME}-cpu",
    min_size=0,
    max_size=pulumi.Output.secret(12),
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": template.id, "version": "$Latest"},
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
)

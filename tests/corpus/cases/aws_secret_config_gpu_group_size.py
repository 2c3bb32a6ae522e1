"""A GPU group whose max size is secret config (``require_secret_int``) that nothing offline
decrypts. A real preview decrypts it; offline it is not known, in a preview too (not a
preview's unknown that deploying settles): it blocks, and the group cannot be priced."""

import pulumi
import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

template = aws.ec2.LaunchTemplate(
    f"{NAME}-template",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g5.2xlarge",
    metadata_options={"http_tokens": "required"},
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
)
aws.autoscaling.Group(
    NAME,
    min_size=0,
    max_size=pulumi.Config().require_secret_int("gpuMaxNodes"),
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": template.id, "version": "$Latest"},
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
)

"""An Auto Scaling group of g5.xlarge on a provider with default_tags, and no tags of its own:
default tags apply to maps of tags, not to a group's tag list, nor to the instances its launch
template (no tag specifications) starts."""

import pulumi
import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget", "required-tags"}

provider = aws.Provider(f"{NAME}-provider", region="us-east-1", default_tags={"tags": TAGS})
template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g5.xlarge",
    metadata_options={"http_tokens": "required"},
    opts=pulumi.ResourceOptions(provider=provider),
)
aws.autoscaling.Group(
    NAME,
    min_size=0,
    max_size=2,
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": template.id, "version": "$Latest"},
    opts=pulumi.ResourceOptions(provider=provider),
)

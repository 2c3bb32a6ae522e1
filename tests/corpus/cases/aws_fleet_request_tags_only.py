"""An EC2 Fleet of 2 x g5.xlarge carrying the cost tags on the fleet request only: its launch
template tags no instances, so the GPU instances launch untagged."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g5.xlarge",
    metadata_options={"http_tokens": "required"},
    tags=TAGS,  # the template's own tags: not its instances'
)
aws.ec2.Fleet(
    NAME,
    type="maintain",
    launch_template_configs=[
        {"launch_template_specification": {"launch_template_id": template.id, "version": "$Latest"}}
    ],
    target_capacity_specification={
        "default_target_capacity_type": "on-demand",
        "total_target_capacity": 2,
    },
    tags=TAGS,
)

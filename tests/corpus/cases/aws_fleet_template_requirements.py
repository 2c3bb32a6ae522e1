"""An EC2 Fleet of 8 from a launch template choosing instances with 4 to 8 GPUs: up to 64."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_requirements={
        "accelerator_count": {"min": 4, "max": 8},
        "vcpu_count": {"min": 1},
        "memory_mib": {"min": 1024},
    },
    metadata_options={"http_tokens": "required"},
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
)
aws.ec2.Fleet(
    NAME,
    launch_template_configs=[
        {"launch_template_specification": {"launch_template_id": template.id, "version": "$Latest"}}
    ],
    target_capacity_specification={
        "default_target_capacity_type": "spot",
        "total_target_capacity": 8,
    },
    tags=TAGS,
)

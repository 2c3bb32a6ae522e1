"""An Auto Scaling group choosing instances by attributes (8 accelerators each), up to 4."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget", "gpu-fleet-size"}

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    metadata_options={"http_tokens": "required"},
    tags=TAGS,
)
aws.autoscaling.Group(
    NAME,
    max_size=4,
    min_size=0,
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    mixed_instances_policy={
        "launch_template": {
            "launch_template_specification": {"launch_template_id": template.id},
            "overrides": [
                {
                    "instance_requirements": {
                        "accelerator_count": {"min": 8, "max": 8},
                        "accelerator_types": ["gpu"],
                        "vcpu_count": {"min": 1},
                        "memory_mib": {"min": 1024},
                    }
                }
            ],
        }
    },
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
)

"""An Auto Scaling group choosing by vCPUs and memory only: AWS counts instances with
accelerators in, so it may launch 6 of the largest (some with 16 accelerators each).
"""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget", "gpu-fleet-size", "gpu-instance-size"}

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    metadata_options={"http_tokens": "required"},
    tags=TAGS,
)
aws.autoscaling.Group(
    NAME,
    max_size=6,
    min_size=0,
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    mixed_instances_policy={
        "launch_template": {
            "launch_template_specification": {"launch_template_id": template.id},
            "overrides": [
                {"instance_requirements": {"vcpu_count": {"min": 4}, "memory_mib": {"min": 8192}}}
            ],
        }
    },
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
)

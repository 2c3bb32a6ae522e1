"""A mixed-instances group of g5 machines propagating only project and owner, its template
tagging instances with cost-center only: its instances lack environment."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget", "required-tags"}

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    metadata_options={"http_tokens": "required"},
    tag_specifications=[
        {"resource_type": "instance", "tags": {"cost-center": TAGS["cost-center"]}}
    ],
    tags=TAGS,
)
aws.autoscaling.Group(
    NAME,
    min_size=0,
    max_size=2,
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    mixed_instances_policy={
        "launch_template": {
            "launch_template_specification": {
                "launch_template_id": template.id,
                "version": "$Latest",
            },
            "overrides": [{"instance_type": "g5.xlarge"}, {"instance_type": "g5.2xlarge"}],
        },
        "instances_distribution": {
            "on_demand_base_capacity": 0,
            "on_demand_percentage_above_base_capacity": 0,
            "spot_allocation_strategy": "price-capacity-optimized",
        },
    },
    tags=[
        {"key": k, "value": v, "propagate_at_launch": k in ("project", "owner")}
        for k, v in TAGS.items()
    ],
)

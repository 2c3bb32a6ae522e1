"""An Auto Scaling group of at most 2 g5.xlarge, and an AWS Auto Scaling plan that raises it to
40, which gpufleet does not read: its size is undetermined (and so not priced)."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

template = aws.ec2.LaunchTemplate(
    f"{NAME}-template",
    instance_type="g5.xlarge",
    metadata_options={"http_tokens": "required"},
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
)
group = aws.autoscaling.Group(
    NAME,
    min_size=0,
    max_size=2,
    availability_zones=["us-east-1a"],
    launch_template={"id": template.id, "version": "$Latest"},
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
)
aws.autoscalingplans.ScalingPlan(
    f"{NAME}-plan",
    name=NAME,
    application_source={"tag_filters": [{"key": "project", "values": ["acme-ml"]}]},
    scaling_instructions=[
        {
            "service_namespace": "autoscaling",
            "scalable_dimension": "autoscaling:autoScalingGroup:DesiredCapacity",
            "resource_id": group.name.apply(lambda name: f"autoScalingGroup/{name}"),
            "min_capacity": 0,
            "max_capacity": 40,
            "target_tracking_configurations": [
                {
                    "predefined_scaling_metric_specification": {
                        "predefined_scaling_metric_type": "ASGAverageCPUUtilization"
                    },
                    "target_value": 50,
                }
            ],
        }
    ],
)

"""A CodeBuild fleet of one small GPU machine (an A10G) whose scaling configuration lets it
reach 24 machines: 24 A10Gs, at CodeBuild's own rates (not in the catalog)."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size", "gpu-budget"}

aws.codebuild.Fleet(
    NAME,
    base_capacity=1,
    compute_type="BUILD_GENERAL1_SMALL",
    environment_type="LINUX_GPU_CONTAINER",
    overflow_behavior="QUEUE",
    scaling_configuration={
        "scaling_type": "TARGET_TRACKING_SCALING",
        "max_capacity": 24,
        "target_tracking_scaling_configs": [
            {"metric_type": "FLEET_UTILIZATION_RATE", "target_value": 80}
        ],
    },
    tags=TAGS,
)

"""An EMR cluster whose core instance fleet asks for 24 on-demand units of GPU machines weighted
by their GPUs (g5.12xlarge: 4 units, g5.24xlarge: 4 units): 6 machines, 24 A10Gs."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

aws.emr.Cluster(
    NAME,
    release_label="emr-7.2.0",
    applications=["Spark"],
    service_role="arn:aws:iam::123456789012:role/EMR_DefaultRole",
    master_instance_fleet={
        "instance_type_configs": [{"instance_type": "m5.xlarge"}],
        "target_on_demand_capacity": 1,
    },
    core_instance_fleet={
        "name": "gpu-core",
        "instance_type_configs": [
            {"instance_type": "g5.12xlarge", "weighted_capacity": 4},
            {"instance_type": "g5.24xlarge", "weighted_capacity": 4},
        ],
        "target_on_demand_capacity": 24,
    },
    ec2_attributes={
        "subnet_ids": ["subnet-0aaaaaaaaaaaaaaaa"],
        "instance_profile": "arn:aws:iam::123456789012:instance-profile/EMR_EC2_DefaultRole",
    },
    tags=TAGS,
)

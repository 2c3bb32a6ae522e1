"""A CPU EMR cluster with a task instance fleet of 8 spot units of g5.12xlarge: 32 A10Gs."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

cluster = aws.emr.Cluster(
    NAME,
    release_label="emr-7.2.0",
    service_role="arn:aws:iam::123456789012:role/emr",
    master_instance_fleet={
        "instance_type_configs": [{"instance_type": "m5.xlarge"}],
        "target_on_demand_capacity": 1,
    },
    core_instance_fleet={
        "instance_type_configs": [{"instance_type": "m5.2xlarge"}],
        "target_on_demand_capacity": 2,
    },
    ec2_attributes={"instance_profile": "arn:aws:iam::123456789012:instance-profile/emr"},
    tags=TAGS,
)
aws.emr.InstanceFleet(
    f"{NAME}-task",
    cluster_id=cluster.id,
    instance_type_configs=[{"instance_type": "g5.12xlarge", "weighted_capacity": 1}],
    target_spot_capacity=8,
)

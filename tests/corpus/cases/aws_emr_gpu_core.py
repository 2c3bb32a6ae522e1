"""An EMR cluster of 2 x p3.8xlarge core nodes (8 V100s) whose managed scaling takes its core
and task nodes to 10 instances: 40 V100s."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

cluster = aws.emr.Cluster(
    NAME,
    release_label="emr-7.2.0",
    service_role="arn:aws:iam::123456789012:role/emr",
    master_instance_group={"instance_type": "m5.xlarge"},
    core_instance_group={"instance_type": "p3.8xlarge", "instance_count": 2},
    ec2_attributes={"instance_profile": "arn:aws:iam::123456789012:instance-profile/emr"},
    tags=TAGS,
)
aws.emr.ManagedScalingPolicy(
    f"{NAME}-scaling",
    cluster_id=cluster.id,
    compute_limits=[
        {"unit_type": "Instances", "minimum_capacity_units": 2, "maximum_capacity_units": 10}
    ],
)

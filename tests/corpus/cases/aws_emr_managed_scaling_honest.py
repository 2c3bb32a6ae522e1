"""Honest: an EMR cluster of 2 x g5.xlarge core nodes whose managed scaling stops at 4 core
instances: 4 A10Gs."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

cluster = aws.emr.Cluster(
    NAME,
    release_label="emr-7.2.0",
    applications=["Spark"],
    service_role="arn:aws:iam::123456789012:role/EMR_DefaultRole",
    master_instance_group={"instance_type": "m5.xlarge"},
    core_instance_group={"instance_type": "g5.xlarge", "instance_count": 2},
    ec2_attributes={
        "subnet_id": "subnet-0aaaaaaaaaaaaaaaa",
        "instance_profile": "arn:aws:iam::123456789012:instance-profile/EMR_EC2_DefaultRole",
    },
    tags=TAGS,
)
aws.emr.ManagedScalingPolicy(
    f"{NAME}-scaling",
    cluster_id=cluster.id,
    compute_limits=[
        {
            "unit_type": "Instances",
            "minimum_capacity_units": 2,
            "maximum_capacity_units": 4,
            "maximum_core_capacity_units": 4,
        }
    ],
)

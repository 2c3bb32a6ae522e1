"""An EMR cluster of one g5.12xlarge core node (48 vCPUs, 4 A10Gs) whose managed scaling counts
in vCPUs and may reach 480: 10 machines, 40 A10Gs."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

cluster = aws.emr.Cluster(
    NAME,
    release_label="emr-7.2.0",
    applications=["Spark"],
    service_role="arn:aws:iam::123456789012:role/EMR_DefaultRole",
    master_instance_group={"instance_type": "m5.xlarge"},
    core_instance_group={"instance_type": "g5.12xlarge", "instance_count": 1},
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
        {"unit_type": "VCPU", "minimum_capacity_units": 48, "maximum_capacity_units": 480}
    ],
)

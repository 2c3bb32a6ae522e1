"""A CPU EMR cluster with a task instance group of one g5.12xlarge, which Application Auto
Scaling grows to 6 instances: 24 A10Gs."""

import pulumi
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
    core_instance_group={"instance_type": "m5.2xlarge", "instance_count": 2},
    ec2_attributes={
        "subnet_id": "subnet-0aaaaaaaaaaaaaaaa",
        "instance_profile": "arn:aws:iam::123456789012:instance-profile/EMR_EC2_DefaultRole",
    },
    tags=TAGS,
)
task = aws.emr.InstanceGroup(
    f"{NAME}-task",
    cluster_id=cluster.id,
    instance_type="g5.12xlarge",
    instance_count=1,
    name="gpu-task",
)
aws.appautoscaling.Target(
    f"{NAME}-target",
    service_namespace="elasticmapreduce",
    scalable_dimension="elasticmapreduce:instancegroup:InstanceCount",
    resource_id=pulumi.Output.concat("instancegroup/", cluster.id, "/", task.id),
    min_capacity=1,
    max_capacity=6,
    tags=TAGS,
)

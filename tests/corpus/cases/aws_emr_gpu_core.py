"""An EMR cluster with a core group of p3.8xlarge: a GPU type gpufleet reads no size of."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

aws.emr.Cluster(
    NAME,
    release_label="emr-7.2.0",
    service_role="arn:aws:iam::123456789012:role/emr",
    master_instance_group={"instance_type": "m5.xlarge"},
    core_instance_group={"instance_type": "p3.8xlarge", "instance_count": 4},
    ec2_attributes={"instance_profile": "arn:aws:iam::123456789012:instance-profile/emr"},
    tags=TAGS,
)

"""An EKS node group of g5.xlarge with no owner tag."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

aws.eks.NodeGroup(
    NAME,
    cluster_name="ml",
    node_role_arn="arn:aws:iam::123456789012:role/nodes",
    subnet_ids=["subnet-0aaaaaaaaaaaaaaaa"],
    instance_types=["g5.xlarge"],
    scaling_config={"desired_size": 1, "max_size": 2, "min_size": 1},
    tags={k: v for k, v in TAGS.items() if k != "owner"},
)

"""An EKS node group of at most 2 x g5.12xlarge (8 A10Gs) with a RUNNING warm pool whose
prepared capacity is 6 nodes: 24 A10Gs running."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

# A node group's own tags stay on it: its nodes get theirs from its launch template.
nodes = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    metadata_options={"http_tokens": "required"},
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
)
aws.eks.NodeGroup(
    NAME,
    launch_template={"id": nodes.id, "version": nodes.latest_version.apply(str)},
    cluster_name="ml",
    node_role_arn="arn:aws:iam::123456789012:role/eks-nodes",
    subnet_ids=["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"],
    instance_types=["g5.12xlarge"],
    ami_type="AL2023_x86_64_NVIDIA",
    scaling_config={"desired_size": 1, "min_size": 1, "max_size": 2},
    warm_pool_config={"pool_state": "RUNNING", "max_group_prepared_capacity": 6, "min_size": 4},
    tags=TAGS,
)

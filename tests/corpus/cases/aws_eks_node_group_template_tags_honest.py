"""Honest: an EKS node group of g5.xlarge whose launch template (named, not by id) tags its
instances."""

import pulumi
import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    name="eks-g5-nodes",
    metadata_options={"http_tokens": "required", "http_put_response_hop_limit": 2},
    tag_specifications=[{"resource_type": "instance", "tags": {**TAGS, "Name": "eks-g5"}}],
    tags=TAGS,
)
aws.eks.NodeGroup(
    NAME,
    cluster_name="ml",
    node_role_arn="arn:aws:iam::123456789012:role/eks-nodes",
    subnet_ids=["subnet-0aaaaaaaaaaaaaaaa"],
    instance_types=["g5.xlarge"],
    ami_type="AL2023_x86_64_NVIDIA",
    launch_template={"name": "eks-g5-nodes", "version": "$Latest"},
    scaling_config={"desired_size": 1, "min_size": 0, "max_size": 2},
    tags=TAGS,
    opts=pulumi.ResourceOptions(depends_on=[template]),
)

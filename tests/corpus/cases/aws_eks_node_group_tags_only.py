"""An EKS node group of g5.xlarge with the cost tags on the node group and a launch template
that tags only volumes: the nodes launch without the tags."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    metadata_options={"http_tokens": "required", "http_put_response_hop_limit": 2},
    tag_specifications=[{"resource_type": "volume", "tags": TAGS}],
    tags=TAGS,
)
aws.eks.NodeGroup(
    NAME,
    cluster_name="ml",
    node_role_arn="arn:aws:iam::123456789012:role/eks-nodes",
    subnet_ids=["subnet-0aaaaaaaaaaaaaaaa"],
    instance_types=["g5.xlarge"],
    launch_template={"id": template.id, "version": template.latest_version.apply(str)},
    scaling_config={"desired_size": 1, "min_size": 1, "max_size": 2},
    tags=TAGS,
)

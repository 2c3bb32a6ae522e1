"""An EKS node group tagged as training capacity, on-demand."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"training-on-spot"}

# A node group's own tags stay on it: its nodes get theirs from its launch template.
nodes = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    metadata_options={"http_tokens": "required"},
    tag_specifications=[
        {"resource_type": "instance", "tags": {**TAGS, "workload-kind": "training"}}
    ],
    tags=TAGS,
)
aws.eks.NodeGroup(
    NAME,
    launch_template={"id": nodes.id, "version": "$Latest"},
    cluster_name="ml",
    node_role_arn="arn:aws:iam::123456789012:role/nodes",
    subnet_ids=["subnet-0aaaaaaaaaaaaaaaa"],
    instance_types=["g5.2xlarge"],
    capacity_type="ON_DEMAND",
    scaling_config={"desired_size": 1, "max_size": 2, "min_size": 0},
    tags={**TAGS, "workload-kind": "training"},
)

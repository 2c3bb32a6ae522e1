"""An EKS node group of up to 4 x p5.48xlarge: 32 H100s, twice the dev fleet limit."""

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
    launch_template={"id": nodes.id, "version": "$Latest"},
    cluster_name="ml",
    node_role_arn="arn:aws:iam::123456789012:role/nodes",
    subnet_ids=["subnet-0aaaaaaaaaaaaaaaa"],
    instance_types=["p5.48xlarge"],
    scaling_config={"desired_size": 1, "max_size": 4, "min_size": 1},
    tags=TAGS,
)

"""An EKS node group whose machines come from its launch template (p4d.24xlarge), up to 3 nodes: 24
A100s.
"""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget", "gpu-fleet-size"}

template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    instance_type="p4d.24xlarge",
    metadata_options={"http_tokens": "required"},
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
)
aws.eks.NodeGroup(
    NAME,
    cluster_name="ml",
    node_role_arn="arn:aws:iam::123456789012:role/nodes",
    subnet_ids=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": template.id, "version": "$Latest"},
    scaling_config={"desired_size": 0, "max_size": 3, "min_size": 0},
    tags=TAGS,
)

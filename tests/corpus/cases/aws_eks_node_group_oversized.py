"""An EKS node group of up to 4 x p5.48xlarge: 32 H100s, twice the dev fleet limit."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

aws.eks.NodeGroup(
    NAME,
    cluster_name="ml",
    node_role_arn="arn:aws:iam::123456789012:role/nodes",
    subnet_ids=["subnet-0aaaaaaaaaaaaaaaa"],
    instance_types=["p5.48xlarge"],
    scaling_config={"desired_size": 1, "max_size": 4, "min_size": 1},
    tags=TAGS,
)

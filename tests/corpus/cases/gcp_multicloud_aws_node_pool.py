"""GKE Multi-Cloud: a GCP resource whose nodes are EC2 p5.48xlarge machines."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

gcp.container.AwsNodePool(
    NAME,
    location="us-west1",
    cluster="c",
    subnet_id="subnet-0aaaaaaaaaaaaaaaa",
    version="1.30",
    autoscaling={"min_node_count": 3, "max_node_count": 3},
    max_pods_constraint={"max_pods_per_node": 110},
    config={
        "instance_type": "p5.48xlarge",
        "iam_instance_profile": "p",
        "config_encryption": {"kms_key_arn": "k"},
        "tags": TAGS,
    },
)

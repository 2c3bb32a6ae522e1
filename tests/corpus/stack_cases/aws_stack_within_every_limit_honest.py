"""Honest: a tagged group, an EKS node group and a SageMaker endpoint, each within the fleet
limit, and all of them at their max size within the stack limit and the worst-case cap."""

import pulumi_aws as aws
from _tags import TAGS

EXPECT: set[str] = set()
POLICY_CONFIG = {
    "gpu-fleet-size": {"maxGpusPerStack": 24},
    "gpu-budget": {"worstCaseMonthlyUsd": 20000},
}

template = aws.ec2.LaunchTemplate(
    "g5-lt",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g5.xlarge",
    metadata_options={"http_tokens": "required"},
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
)
aws.autoscaling.Group(
    "g5-group",
    min_size=1,
    max_size=4,
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": template.id, "version": "$Latest"},
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
)
nodes = aws.ec2.LaunchTemplate(
    "eks-lt",
    metadata_options={"http_tokens": "required"},
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
)
aws.eks.NodeGroup(
    "eks-l4",
    cluster_name="ml",
    node_role_arn="arn:aws:iam::123456789012:role/eks-nodes",
    subnet_ids=["subnet-0aaaaaaaaaaaaaaaa"],
    instance_types=["g6.xlarge"],
    capacity_type="SPOT",
    launch_template={"id": nodes.id, "version": "$Latest"},
    scaling_config={"desired_size": 1, "min_size": 1, "max_size": 4},
    tags=TAGS,
)
config = aws.sagemaker.EndpointConfiguration(
    "embed-config",
    production_variants=[
        {
            "variant_name": "main",
            "model_name": "embed",
            "instance_type": "ml.g5.2xlarge",
            "initial_instance_count": 2,
        }
    ],
    tags=TAGS,
)

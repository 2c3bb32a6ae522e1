"""Twenty single g5.12xlarge instances (4 A10Gs each): no instance is a fleet above the dev
limit, but the stack holds 80 GPUs, over a stack limit of 64. The budget is raised so only the
GPU count is judged."""

import pulumi_aws as aws
from _tags import TAGS

EXPECT = {"gpu-fleet-size"}
POLICY_CONFIG = {
    "gpu-fleet-size": {"maxGpusPerStack": 64},
    "gpu-budget": {"monthlyBudgetUsd": 250000},
}

for i in range(20):
    aws.ec2.Instance(
        f"worker-{i:02d}",
        ami="ami-0aaaaaaaaaaaaaaaa",
        instance_type="g5.12xlarge",
        subnet_id="subnet-0aaaaaaaaaaaaaaaa",
        metadata_options={"http_tokens": "required"},
        tags=TAGS,
    )

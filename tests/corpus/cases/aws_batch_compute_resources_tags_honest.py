"""Honest: a Batch compute environment of g5 machines whose computeResources tag the instances
it launches, and which carries the tags itself."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

aws.batch.ComputeEnvironment(
    NAME,
    name="gpu-batch",
    type="MANAGED",
    compute_resources={
        "type": "EC2",
        "allocation_strategy": "BEST_FIT_PROGRESSIVE",
        "instance_types": ["g5.xlarge", "g5.2xlarge"],
        "min_vcpus": 0,
        "max_vcpus": 16,
        "subnets": ["subnet-0aaaaaaaaaaaaaaaa"],
        "security_group_ids": ["sg-0aaaaaaaaaaaaaaaa"],
        "instance_role": "arn:aws:iam::123456789012:instance-profile/batch",
        "tags": TAGS,
    },
    # It sits at zero until jobs come: its expected use is declared, so it can be priced.
    tags={**TAGS, "expected-minutes": "600"},
)

"""A CodeBuild reserved capacity fleet of 2 GPU machines (BUILD_GENERAL1_LARGE: 4 V100s each):
sized, and unpriced (CodeBuild's rates are not in the catalog), so the budget cannot hold it."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget"}

aws.codebuild.Fleet(
    NAME,
    base_capacity=2,
    compute_type="BUILD_GENERAL1_LARGE",
    environment_type="LINUX_GPU_CONTAINER",
    tags=TAGS,
)

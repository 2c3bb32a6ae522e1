"""A CodeBuild project in the GPU environment with no concurrent build limit: as many 4-GPU builds
at once as the account allows, a size gpufleet cannot read, so it blocks."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined"}

aws.codebuild.Project(
    NAME,
    service_role="arn:aws:iam::123456789012:role/codebuild",
    artifacts={"type": "NO_ARTIFACTS"},
    source={"type": "GITHUB", "location": "https://github.com/acme/ml.git"},
    environment={
        "compute_type": "BUILD_GENERAL1_LARGE",
        "image": "aws/codebuild/amazonlinux2-x86_64-standard:5.0",
        "type": "LINUX_GPU_CONTAINER",
    },
    tags=TAGS,
)

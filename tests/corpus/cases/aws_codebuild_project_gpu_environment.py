"""A CodeBuild project (on-demand builds, no fleet) in the GPU environment on the large compute
type: each build runs on 4 V100s, as many builds at once as its concurrency allows (20): 80
GPUs at once, far above the dev fleet limit."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

aws.codebuild.Project(
    NAME,
    service_role="arn:aws:iam::123456789012:role/codebuild",
    artifacts={"type": "NO_ARTIFACTS"},
    source={"type": "GITHUB", "location": "https://github.com/acme/model-tests.git"},
    concurrent_build_limit=20,
    environment={
        "compute_type": "BUILD_GENERAL1_LARGE",
        "type": "LINUX_GPU_CONTAINER",
        "image": "aws/codebuild/amazonlinux2-x86_64-standard:5.0",
    },
    tags=TAGS,
)

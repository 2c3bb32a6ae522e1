"""A CodeBuild fleet on a custom instance type, p4d.24xlarge (8 A100s), in the plain Linux
environment, three machines reserved: 24 A100s, whatever its environment type says."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size", "gpu-budget"}

aws.codebuild.Fleet(
    NAME,
    base_capacity=3,
    compute_type="CUSTOM_INSTANCE_TYPE",
    compute_configuration={"instance_type": "p4d.24xlarge", "disk": 200},
    environment_type="LINUX_CONTAINER",
    tags=TAGS,
)

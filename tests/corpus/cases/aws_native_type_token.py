"""Another provider's type token (aws-native), registered directly: no reader knows it, but it
names a GPU machine."""

import pulumi

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

pulumi.CustomResource(
    "aws-native:ec2:Instance", NAME, {"instanceType": "p5.48xlarge", "imageId": "ami-1"}
)

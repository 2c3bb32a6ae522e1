"""A SageMaker notebook on ml.p3.8xlarge with no tags."""

import pulumi_aws as aws

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

aws.sagemaker.NotebookInstance(
    NAME,
    instance_type="ml.p3.8xlarge",
    role_arn="arn:aws:iam::123456789012:role/sagemaker",
)

"""A launch configuration of g5.xlarge with a public IP and IMDSv1."""

import pulumi_aws as aws

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-no-public-ip", "imdsv2-required"}

aws.ec2.LaunchConfiguration(
    NAME,
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g5.xlarge",
    associate_public_ip_address=True,
)

"""Honest: an Elastic Beanstalk environment of a single g5.xlarge (one A10G)."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

aws.elasticbeanstalk.Environment(
    NAME,
    application="acme-demo",
    solution_stack_name="64bit Amazon Linux 2023 v4.3.0 running Docker",
    settings=[
        {
            "namespace": "aws:elasticbeanstalk:environment",
            "name": "EnvironmentType",
            "value": "SingleInstance",
        },
        {
            "namespace": "aws:autoscaling:launchconfiguration",
            "name": "InstanceType",
            "value": "g5.xlarge",
        },
        {
            "namespace": "aws:autoscaling:launchconfiguration",
            "name": "IamInstanceProfile",
            "value": "aws-elasticbeanstalk-ec2-role",
        },
    ],
    tags=TAGS,
)

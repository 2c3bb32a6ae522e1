"""An Elastic Beanstalk environment of t3.large instances: no GPUs, passes."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

aws.elasticbeanstalk.Environment(
    NAME,
    application="acme-ml",
    solution_stack_name="64bit Amazon Linux 2023 v4.3.0 running Python 3.11",
    settings=[
        {"namespace": "aws:ec2:instances", "name": "InstanceTypes", "value": "t3.large"},
        {"namespace": "aws:autoscaling:asg", "name": "MaxSize", "value": "40"},
    ],
    tags=TAGS,
)

"""An Elastic Beanstalk environment that sets nothing itself; its configuration template runs
p3.8xlarge up to 10 instances: 40 V100s."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

template = aws.elasticbeanstalk.ConfigurationTemplate(
    f"{NAME}-template",
    application="acme-ml",
    solution_stack_name="64bit Amazon Linux 2023 v4.3.0 running Python 3.11",
    settings=[
        {"namespace": "aws:ec2:instances", "name": "InstanceTypes", "value": "p3.8xlarge"},
        {"namespace": "aws:autoscaling:asg", "name": "MaxSize", "value": "10"},
    ],
)
aws.elasticbeanstalk.Environment(
    NAME, application="acme-ml", template_name=template.name, tags=TAGS
)

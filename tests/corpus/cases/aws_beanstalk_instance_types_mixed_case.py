"""An Elastic Beanstalk environment whose own settings list its instance types in mixed case
and with spaces ("G5.12XLARGE , g5.2xlarge") and allow 6 instances: 24 A10Gs at its largest."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

aws.elasticbeanstalk.Environment(
    NAME,
    application="acme-inference",
    solution_stack_name="64bit Amazon Linux 2023 v4.3.0 running Docker",
    settings=[
        {
            "namespace": "aws:ec2:instances",
            "name": "InstanceTypes",
            "value": "G5.12XLARGE , g5.2xlarge",
        },
        {"namespace": "aws:autoscaling:asg", "name": "MinSize", "value": "1"},
        {"namespace": "aws:autoscaling:asg", "name": "MaxSize", "value": "6"},
        {
            "namespace": "aws:autoscaling:launchconfiguration",
            "name": "IamInstanceProfile",
            "value": "aws-elasticbeanstalk-ec2-role",
        },
    ],
    tags=TAGS,
)

"""A CloudFormation stack whose template (a JSON string) launches p5.48xlarge machines."""

import json

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

template = {
    "Resources": {
        "Group": {
            "Type": "AWS::AutoScaling::AutoScalingGroup",
            "Properties": {"MinSize": "3", "MaxSize": "3", "VPCZoneIdentifier": ["subnet-1"]},
        },
        "Template": {
            "Type": "AWS::EC2::LaunchTemplate",
            "Properties": {"LaunchTemplateData": {"InstanceType": "p5.48xlarge"}},
        },
    }
}
aws.cloudformation.Stack(NAME, template_body=json.dumps(template), tags=TAGS)

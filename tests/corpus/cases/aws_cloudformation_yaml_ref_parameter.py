"""A CloudFormation stack from a YAML template (short-form !Ref / !GetAtt / !Sub) whose launch
template takes its instance type from a parameter defaulting to p4d.24xlarge, for a group of 3:
24 A100s held in a string."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

TEMPLATE = """
AWSTemplateFormatVersion: "2010-09-09"
Parameters:
  TrainInstanceType:
    Type: String
    Default: p4d.24xlarge
    AllowedValues: [p4d.24xlarge, p5.48xlarge]
  Subnet:
    Type: AWS::EC2::Subnet::Id
Resources:
  TrainTemplate:
    Type: AWS::EC2::LaunchTemplate
    Properties:
      LaunchTemplateData:
        InstanceType: !Ref TrainInstanceType
        ImageId: '{{resolve:ssm:/acme/amis/gpu-base}}'
        MetadataOptions:
          HttpTokens: required
  TrainGroup:
    Type: AWS::AutoScaling::AutoScalingGroup
    Properties:
      MinSize: "3"
      MaxSize: "3"
      VPCZoneIdentifier: [!Ref Subnet]
      LaunchTemplate:
        LaunchTemplateId: !Ref TrainTemplate
        Version: !GetAtt TrainTemplate.LatestVersionNumber
Outputs:
  Group:
    Value: !Sub "${TrainGroup}"
"""

aws.cloudformation.Stack(
    NAME,
    template_body=TEMPLATE,
    parameters={"Subnet": "subnet-0aaaaaaaaaaaaaaaa"},
    capabilities=["CAPABILITY_IAM"],
    tags=TAGS,
)

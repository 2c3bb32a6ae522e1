"""A CloudFormation YAML template choosing its machine per environment from a mapping
(!FindInMap), where dev maps to g5.48xlarge and prod to p5.48xlarge, with an EC2 Fleet of 4."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

TEMPLATE = """
AWSTemplateFormatVersion: "2010-09-09"
Parameters:
  Env:
    Type: String
    Default: dev
Mappings:
  Sizes:
    dev: {Machine: g5.48xlarge}
    prod: {Machine: p5.48xlarge}
Resources:
  Template:
    Type: AWS::EC2::LaunchTemplate
    Properties:
      LaunchTemplateData:
        InstanceType: !FindInMap [Sizes, !Ref Env, Machine]
  Fleet:
    Type: AWS::EC2::EC2Fleet
    Properties:
      Type: maintain
      TargetCapacitySpecification:
        TotalTargetCapacity: 4
        DefaultTargetCapacityType: on-demand
      LaunchTemplateConfigs:
        - LaunchTemplateSpecification:
            LaunchTemplateId: !Ref Template
            Version: !GetAtt Template.LatestVersionNumber
"""

aws.cloudformation.Stack(NAME, template_body=TEMPLATE, parameters={"Env": "dev"}, tags=TAGS)

"""An aws-native launch template that names no machine but asks, by attributes, for machines
with at least 8 NVIDIA accelerators, and an aws-native group of 4 of them."""

import pulumi

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

template = pulumi.CustomResource(
    "aws-native:ec2:LaunchTemplate",
    NAME,
    {
        "launchTemplateData": {
            "imageId": "ami-0aaaaaaaaaaaaaaaa",
            "instanceRequirements": {
                "vCpuCount": {"min": 32},
                "memoryMiB": {"min": 131072},
                "acceleratorCount": {"min": 8},
                "acceleratorManufacturers": ["nvidia"],
                "acceleratorTypes": ["gpu"],
            },
            "metadataOptions": {"httpTokens": "required"},
        }
    },
)
pulumi.CustomResource(
    "aws-native:autoscaling:AutoScalingGroup",
    f"{NAME}-group",
    {
        "minSize": "0",
        "maxSize": "4",
        "vpcZoneIdentifier": ["subnet-0aaaaaaaaaaaaaaaa"],
        "mixedInstancesPolicy": {
            "launchTemplate": {
                "launchTemplateSpecification": {"launchTemplateId": template.id, "version": "1"},
                "overrides": [
                    {
                        "instanceRequirements": {
                            "acceleratorCount": {"min": 8},
                            "vCpuCount": {"min": 32},
                            "memoryMiB": {"min": 131072},
                        }
                    }
                ],
            }
        },
    },
)

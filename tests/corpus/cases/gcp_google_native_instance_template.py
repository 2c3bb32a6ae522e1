"""An instance template through the google-native provider naming a3-highgpu-8g (8 H100s) by
URL, and a google-native group of 3 of it: types gpufleet has no reader for."""

import pulumi

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

template = pulumi.CustomResource(
    "google-native:compute/v1:InstanceTemplate",
    NAME,
    {
        "name": "h100-train",
        "properties": {
            "machineType": "a3-highgpu-8g",
            "scheduling": {"onHostMaintenance": "TERMINATE"},
            "disks": [
                {
                    "boot": True,
                    "initializeParams": {
                        "sourceImage": "projects/debian-cloud/global/images/family/debian-12"
                    },
                }
            ],
            "networkInterfaces": [{"network": "global/networks/default"}],
        },
    },
)
pulumi.CustomResource(
    "google-native:compute/v1:InstanceGroupManager",
    f"{NAME}-group",
    {
        "zone": "us-central1-a",
        "baseInstanceName": "h100",
        "instanceTemplate": template.id,
        "targetSize": 3,
    },
)

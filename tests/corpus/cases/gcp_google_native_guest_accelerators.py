"""A google-native VM of n1-standard-32 (no GPUs of its own) with 4 T4s attached as guest
accelerators, given by accelerator type URL: GPUs asked for on a type gpufleet does not read."""

import pulumi

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

pulumi.CustomResource(
    "google-native:compute/v1:Instance",
    NAME,
    {
        "zone": "us-central1-b",
        "machineType": "zones/us-central1-b/machineTypes/n1-standard-32",
        "guestAccelerators": [
            {
                "acceleratorType": "projects/acme-ml-dev/zones/us-central1-b/"
                "acceleratorTypes/nvidia-tesla-t4",
                "acceleratorCount": 4,
            }
        ],
        "scheduling": {"onHostMaintenance": "TERMINATE"},
        "networkInterfaces": [{"network": "global/networks/default"}],
    },
)

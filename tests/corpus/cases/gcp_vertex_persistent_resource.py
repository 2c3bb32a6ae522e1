"""A Vertex AI persistent resource with a pool of 3 a3-highgpu-8g: 24 H100s."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

gcp.vertex.AiPersistentResource(
    NAME,
    location="us-central1",
    resource_pools=[
        {
            "id": "train",
            "replica_count": "3",
            "machine_spec": {
                "machine_type": "a3-highgpu-8g",
                "accelerator_type": "NVIDIA_H100_80GB",
                "accelerator_count": 8,
            },
        }
    ],
    labels=TAGS,
)

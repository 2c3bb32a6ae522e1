"""Honest: a Model Garden deployment on 1 to 2 replicas of g2-standard-12 (an L4 each)."""

import pulumi_gcp as gcp

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

gcp.vertex.AiEndpointWithModelGardenDeployment(
    NAME,
    location="us-central1",
    publisher_model_name="publishers/google/models/gemma3@gemma-3-4b-it",
    deploy_config={
        "dedicated_resources": {
            "machine_spec": {
                "machine_type": "g2-standard-12",
                "accelerator_type": "NVIDIA_L4",
                "accelerator_count": 1,
            },
            "min_replica_count": 1,
            "max_replica_count": 2,
        }
    },
)

"""A Model Garden deployment of at most 2 replicas of a3-highgpu-8g, each replica spread over 2
hosts (multihost_gpu_node_count): 4 machines, 32 H100s, though the replica count reads 16."""

import pulumi_gcp as gcp

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

gcp.vertex.AiEndpointWithModelGardenDeployment(
    NAME,
    location="us-central1",
    publisher_model_name="publishers/meta/models/llama3_1@llama-3.1-405b-instruct-fp8",
    deploy_config={
        "dedicated_resources": {
            "machine_spec": {
                "machine_type": "a3-highgpu-8g",
                "accelerator_type": "NVIDIA_H100_80GB",
                "accelerator_count": 8,
                "multihost_gpu_node_count": 2,
            },
            "min_replica_count": 1,
            "max_replica_count": 2,
        }
    },
)

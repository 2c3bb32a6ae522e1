"""A Model Garden deployment on the model's default machines: which GPUs, and how many, only the
model's card says."""

import pulumi_gcp as gcp

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

gcp.vertex.AiEndpointWithModelGardenDeployment(
    NAME,
    location="us-central1",
    hugging_face_model_id="meta-llama/Llama-3.1-8B-Instruct",
)

"""A SageMaker HyperPod cluster through the aws-native provider (no pulumi_aws type for it):
an instance group of 4 x ml.p5.48xlarge, 32 H100s, of a type gpufleet has no reader for."""

import pulumi

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

pulumi.CustomResource(
    "aws-native:sagemaker:Cluster",
    NAME,
    {
        "clusterName": "llm-pretrain",
        "instanceGroups": [
            {
                "instanceGroupName": "workers",
                "instanceType": "ml.p5.48xlarge",
                "instanceCount": 4,
                "executionRole": "arn:aws:iam::123456789012:role/hyperpod",
                "lifeCycleConfig": {
                    "sourceS3Uri": "s3://acme-hyperpod/lifecycle/",
                    "onCreate": "on_create.sh",
                },
            }
        ],
    },
)

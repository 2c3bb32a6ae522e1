"""Honest: a tuning job running 2 spot training jobs at once, each on one ml.g5.2xlarge
(an A10G), checkpointing to S3: 2 GPUs."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

aws.sagemaker.HyperParameterTuningJob(
    NAME,
    name="lr-sweep",
    config={
        "strategy": "Random",
        "resource_limits": {"max_parallel_training_jobs": 2, "max_number_of_training_jobs": 20},
    },
    training_job_definition={
        "role_arn": "arn:aws:iam::123456789012:role/sagemaker",
        "algorithm_specification": {
            "training_image": "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.3",
            "training_input_mode": "File",
        },
        "output_data_config": {"s3_output_path": "s3://acme-ml-tuning/out"},
        "resource_config": {
            "instance_type": "ml.g5.2xlarge",
            "instance_count": 1,
            "volume_size_in_gb": 50,
        },
        "enable_managed_spot_training": True,
        "checkpoint_config": {"s3_uri": "s3://acme-ml-tuning/ckpt"},
        "stopping_condition": {"max_runtime_in_seconds": 3600, "max_wait_time_in_seconds": 7200},
    },
    tags=TAGS,
)

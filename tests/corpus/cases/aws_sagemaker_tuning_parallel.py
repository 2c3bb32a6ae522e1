"""A SageMaker tuning job running 8 training jobs at once, each on one ml.p4d.24xlarge: 64
A100s."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

aws.sagemaker.HyperParameterTuningJob(
    NAME,
    config={
        "strategy": "Bayesian",
        "resource_limits": {"max_parallel_training_jobs": 8, "max_number_of_training_jobs": 16},
    },
    training_job_definition={
        "role_arn": "arn:aws:iam::123456789012:role/sagemaker",
        "algorithm_specification": {"training_image": "img:1", "training_input_mode": "File"},
        "output_data_config": {"s3_output_path": "s3://acme-ml-tuning/out"},
        "resource_config": {
            "instance_type": "ml.p4d.24xlarge",
            "instance_count": 1,
            "volume_size_in_gb": 100,
        },
        "enable_managed_spot_training": True,
        "checkpoint_config": {"s3_uri": "s3://acme-ml-tuning/ckpt"},
        "stopping_condition": {"max_runtime_in_seconds": 3600, "max_wait_time_in_seconds": 7200},
    },
    tags=TAGS,
)

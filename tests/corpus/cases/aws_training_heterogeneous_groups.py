"""A SageMaker training job as a heterogeneous cluster: 3 instance groups of ml.p5.48xlarge,
24 GPUs, with no resource_config.instance_type to read."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

aws.sagemaker.TrainingJob(
    NAME,
    training_job_name=NAME,
    role_arn="arn:aws:iam::123456789012:role/r",
    algorithm_specification={"training_image": "x", "training_input_mode": "File"},
    output_data_config={"s3_output_path": "s3://b/o"},
    stopping_condition={"max_runtime_in_seconds": 3600, "max_wait_time_in_seconds": 7200},
    enable_managed_spot_training=True,
    checkpoint_config={"s3_uri": "s3://b/checkpoints"},
    resource_config={
        "volume_size_in_gb": 100,
        "instance_groups": [
            {"instance_group_name": f"g{i}", "instance_type": "ml.p5.48xlarge", "instance_count": 1}
            for i in range(3)
        ],
    },
    tags=TAGS,
)

"""Plain pulumi_aws / pulumi_gcp / pulumi_azure_native resources, no gpufleet components, each
breaking a policy; one template nested in a user's own component."""

import pulumi
import pulumi_aws as aws
import pulumi_azure_native as azure
import pulumi_gcp as gcp

TAGS = {
    "project": "acme-ml",
    "owner": "ml@acme.example",
    "cost-center": "cc-1",
    "environment": "dev",
}


class TrainingStack(pulumi.ComponentResource):
    def __init__(self, name: str) -> None:
        super().__init__("acme:ml:TrainingStack", name)
        # Public IP, IMDSv1, and no cost-center tag.
        self.template = aws.ec2.LaunchTemplate(
            f"{name}-template",
            instance_type="g5.12xlarge",
            network_interfaces=[{"associate_public_ip_address": "true", "device_index": 0}],
            metadata_options={"http_tokens": "optional"},
            tags={k: v for k, v in TAGS.items() if k != "cost-center"},
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.register_outputs({})


stack = TrainingStack("train")
# Training on on-demand, 10 x 4 GPUs: over the fleet limit and the dev budget.
aws.autoscaling.Group(
    "train-group",
    max_size=10,
    min_size=0,
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": stack.template.id, "version": "$Latest"},
    tags=[
        {"key": k, "value": v, "propagate_at_launch": True}
        for k, v in {**TAGS, "workload-kind": "training"}.items()
    ],
)
aws.ec2.CapacityReservation(
    "hold-a100",
    instance_type="p4d.24xlarge",
    instance_platform="Linux/UNIX",
    availability_zone="us-east-1a",
    instance_count=1,
    tags=TAGS,
)
aws.sagemaker.TrainingJob(
    "finetune-job",
    training_job_name="finetune-2026-11",
    role_arn="arn:aws:iam::123456789012:role/sagemaker",
    enable_managed_spot_training=True,
    algorithm_specification={"training_image": "123456789012.dkr.ecr.us-east-1.amazonaws.com/t:1"},
    resource_config={
        "instance_type": "ml.g5.2xlarge",
        "instance_count": 1,
        "volume_size_in_gb": 50,
    },
    stopping_condition={"max_runtime_in_seconds": 7200, "max_wait_time_in_seconds": 3600},
    output_data_config={"s3_output_path": "s3://acme-ml-out/"},
    tags=TAGS,
)
gcp.storage.Bucket("ckpt-store", location="US", labels=TAGS)
gcp.compute.Instance(
    "mega-node",
    machine_type="a2-megagpu-16g",
    zone="us-central1-a",
    boot_disk={"initialize_params": {"image": "debian-cloud/debian-12"}},
    network_interfaces=[{"network": "default", "access_configs": [{}]}],
    scheduling={"provisioning_model": "SPOT", "preemptible": True, "automatic_restart": False},
    # A whole-GPU MIG instance and one more: no A100 takes both.
    metadata_startup_script="#!/bin/bash\nnvidia-smi -mig 1\nnvidia-smi mig -cgi 0,19 -C\n",
    labels=TAGS,
)
azure.machinelearningservices.Compute(
    "always-on",
    resource_group_name="rg-ml-dev",
    workspace_name="ml-dev",
    location="eastus2",
    properties={
        "compute_type": "AmlCompute",
        "properties": {
            "vm_size": "Standard_NC4as_T4_v3",
            "vm_priority": "LowPriority",
            "scale_settings": {"min_node_count": 2, "max_node_count": 2},
        },
    },
    tags=TAGS,
)

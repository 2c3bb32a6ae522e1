"""GPU capacity written with the provider SDKs alone: an Auto Scaling group counted in GPUs, a
GCP spot VM, an Azure ML cluster, an EC2 capacity reservation covered by a commitment, and a
GPU type no catalog knows. Config switches say which exist and how big, so two stacks of this
one program stand for a pull request's base and head."""

import pulumi
import pulumi_aws as aws
import pulumi_azure_native as azure
import pulumi_gcp as gcp

config = pulumi.Config()
tags = {"project": "acme", "owner": "ml@acme.example", "cost-center": "cc-7"}

template = aws.ec2.LaunchTemplate("eval-template", image_id="ami-0abc", tags=tags)
aws.autoscaling.Group(
    "eval-workers",
    desired_capacity_type="units",
    desired_capacity=config.require_int("evalGpus"),
    min_size=0,
    max_size=config.require_int("evalGpus"),
    vpc_zone_identifiers=["subnet-0abc"],
    mixed_instances_policy={
        "instances_distribution": {"on_demand_percentage_above_base_capacity": 0},
        "launch_template": {
            "launch_template_specification": {"launch_template_id": template.id},
            "overrides": [{"instance_type": "p4d.24xlarge", "weighted_capacity": "8"}],
        },
    },
    tags=[{"key": "workload", "value": "evals", "propagate_at_launch": True}],
)
if config.require_bool("a2Spot"):
    gcp.compute.Instance(
        "tuning-vm",
        machine_type="a2-highgpu-1g",
        zone="us-central1-a",
        boot_disk={"initialize_params": {"image": "debian-cloud/debian-12"}},
        network_interfaces=[{"network": "default"}],
        scheduling={"provisioning_model": "SPOT", "preemptible": True, "automatic_restart": False},
        labels={"workload": "tuning"},
    )
azure.machinelearningservices.Compute(
    "batch-cluster",
    resource_group_name="rg-ml",
    workspace_name="ws-ml",
    location="eastus",
    properties={
        "compute_type": "AmlCompute",
        "properties": {
            "vm_size": "Standard_NC4as_T4_v3",
            "vm_priority": "LowPriority",
            "scale_settings": {"max_node_count": 2, "min_node_count": 0},
        },
    },
    # It scales from zero as jobs come: its expected use is declared (else it is unpriced).
    tags={**tags, "workload": "embeddings", "expected-minutes": "6000"},
)
if config.require_bool("servingReservation"):
    aws.ec2.CapacityReservation(
        "serving-reservation",
        instance_type="g6.xlarge",
        instance_count=2,
        instance_platform="Linux/UNIX",
        availability_zone="us-east-1a",
        tags={**tags, "workload": "serving", "commitment": "1y"},
    )
if config.require_bool("mystery"):
    aws.ec2.Instance("mystery", instance_type="p9.96xlarge", ami="ami-0abc", tags=tags)

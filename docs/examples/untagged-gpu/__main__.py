"""A hand-written Pulumi program with mistakes, checked in docs/check.md: a GPU launch template
without the cost-center tag, with a public IP and IMDSv1, and a group of up to 8 of its machines
(4 GPUs each)."""

import pulumi_aws as aws

TAGS = {"project": "acme-ml", "owner": "ml@acme.example", "environment": "dev"}

template = aws.ec2.LaunchTemplate(
    "train-template",
    instance_type="g5.12xlarge",
    network_interfaces=[{"associate_public_ip_address": "true", "device_index": 0}],
    metadata_options={"http_tokens": "optional"},
    tags=TAGS,
)
aws.autoscaling.Group(
    "train-group",
    min_size=0,
    max_size=8,
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": template.id, "version": "$Latest"},
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
)

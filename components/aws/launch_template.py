"""The launch template every gpufleet AWS component uses, with the secure defaults built in.

IMDSv2 only (``http_tokens=required``) with a PUT response hop limit of 1, so only processes on
the instance itself get a metadata token — and with it the instance role's credentials
(Checkov CKV_AWS_341). Containers on a bridge network (Docker's default) are one hop further
and cannot; ``container_imds_access=True`` raises the limit to 2 for hosts whose containers
need the role (host-network containers and EKS pods using IRSA or Pod Identity need neither).
Encrypted gp3 root volume (the account's default EBS key unless ``kms_key_id``), no public IP,
the instance profile, and the required tags on the template and, through tag specifications,
on every instance, volume and network interface it launches.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence

import pulumi
import pulumi_aws as aws

TAGGED_AT_LAUNCH = ("instance", "volume", "network-interface")
# IMDSv2 token responses travel this many network hops: the instance's own processes only, or
# also containers behind a bridge (one hop more).
HOP_LIMIT = 1
CONTAINER_HOP_LIMIT = 2
USER_DATA_LIMIT = 16 * 1024  # bytes before base64, EC2's limit


def gpu_launch_template(
    name: str,
    *,
    parent: pulumi.Resource,
    tags: dict[str, str],
    image_id: pulumi.Input[str],
    instance_profile_arn: pulumi.Input[str],
    network_interfaces: Sequence[aws.ec2.LaunchTemplateNetworkInterfaceArgs],
    root_volume_gib: int,
    root_device_name: str = "/dev/sda1",
    kms_key_id: pulumi.Input[str] | None = None,
    user_data: str | None = None,
    instance_type: str | None = None,
    capacity_reservation_id: pulumi.Input[str] | None = None,
    placement_group_name: pulumi.Input[str] | None = None,
    container_imds_access: bool = False,
    market_type: str | None = None,
) -> aws.ec2.LaunchTemplate:
    return aws.ec2.LaunchTemplate(
        f"{name}-lt",
        description=f"gpufleet {tags.get('workload', name)}",
        image_id=image_id,
        instance_type=instance_type,
        iam_instance_profile=aws.ec2.LaunchTemplateIamInstanceProfileArgs(arn=instance_profile_arn),
        metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(
            http_endpoint="enabled",
            http_tokens="required",
            http_put_response_hop_limit=CONTAINER_HOP_LIMIT if container_imds_access else HOP_LIMIT,
            instance_metadata_tags="disabled",
        ),
        block_device_mappings=[
            aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
                device_name=root_device_name,
                ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
                    encrypted="true",
                    kms_key_id=kms_key_id,
                    volume_size=root_volume_gib,
                    volume_type="gp3",
                    delete_on_termination="true",
                ),
            )
        ],
        network_interfaces=list(network_interfaces),
        ebs_optimized="true",
        user_data=base64.b64encode(user_data.encode()).decode() if user_data else None,
        capacity_reservation_specification=None
        if capacity_reservation_id is None
        else aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs(
            capacity_reservation_target=aws.ec2.LaunchTemplateCapacityReservationSpecificationCapacityReservationTargetArgs(
                capacity_reservation_id=capacity_reservation_id
            )
        ),
        # "capacity-block": EC2 launches into a Capacity Block only when the template says so.
        instance_market_options=None
        if market_type is None
        else aws.ec2.LaunchTemplateInstanceMarketOptionsArgs(market_type=market_type),
        placement=None
        if placement_group_name is None
        else aws.ec2.LaunchTemplatePlacementArgs(group_name=placement_group_name),
        tag_specifications=[
            aws.ec2.LaunchTemplateTagSpecificationArgs(resource_type=kind, tags=tags)
            for kind in TAGGED_AT_LAUNCH
        ],
        tags=tags,
        update_default_version=True,
        opts=pulumi.ResourceOptions(parent=parent),
    )


def worker_network_interface(
    security_group_ids: Sequence[pulumi.Input[str]], *, public_ip: bool
) -> aws.ec2.LaunchTemplateNetworkInterfaceArgs:
    """The single primary interface of a non-cluster instance; the subnet comes at launch."""
    return aws.ec2.LaunchTemplateNetworkInterfaceArgs(
        device_index=0,
        security_groups=list(security_group_ids),
        associate_public_ip_address="true" if public_ip else "false",
        delete_on_termination="true",
    )

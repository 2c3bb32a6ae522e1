"""PlacementCluster: the nodes of one tightly coupled job, packed together with EFA.

A ``cluster`` placement group puts the nodes on the same high-bisection network segment; a launch
template gives each node every EFA interface its size supports (``efa.py``: 4 on p4d, 32 EFA-only
behind an ENA primary on p5); a security group whose only rules allow all traffic to and from
itself lets EFA flow between the nodes and nothing else in. All nodes go in one subnet, hence
one availability zone. Capacity is on-demand, spot, or a capacity reservation targeted by id
(see ``CapacityPool``). The nodes run in an Auto Scaling group of fixed size ``nodes``, which
replaces a failed node in the same placement group.

The security group has no rule to reach anything outside the cluster; pass
``extra_security_group_ids`` (e.g. one allowing egress to your VPC endpoints) for that.

Example::

    from gpufleet.components.aws.placement_cluster import PlacementCluster, PlacementClusterArgs

    cluster = PlacementCluster(
        "pretrain",
        PlacementClusterArgs(
            tags=tags,
            instance_type="p5.48xlarge",
            nodes=2,
            vpc_id=vpc.id,
            subnet_id=private_subnet_a.id,
            capacity="capacity_reservation",
            capacity_reservation_id=pool.capacity_reservation_id,
            extra_security_group_ids=[egress_sg.id],
        ),
    )
"""

from __future__ import annotations

import re
from typing import Literal

import pulumi
import pulumi_aws as aws
from pydantic import Field, field_validator, model_validator

from gpufleet.components.aws.ami import AmiId, image_id
from gpufleet.components.aws.efa import efa_interface_count, efa_network_interfaces
from gpufleet.components.aws.group_scaling import (
    group_options,
    group_tags,
    scale_group,
)
from gpufleet.components.aws.instance_role import instance_profile
from gpufleet.components.aws.launch_template import USER_DATA_LIMIT, gpu_launch_template
from gpufleet.components.aws.security_group import cluster_security_group
from gpufleet.components.component_args import ComponentArgs, StrInput, is_known
from gpufleet.components.scaling import Scaling
from gpufleet.components.tagging import RequiredTags

PLACEMENT_STRATEGY = "cluster"
CAPACITY_RESERVATION_ID = re.compile(r"cr-[0-9a-f]{8,17}")


class PlacementClusterArgs(ComponentArgs):
    tags: RequiredTags
    instance_type: str
    nodes: int = Field(ge=1, le=512)
    vpc_id: StrInput
    subnet_id: StrInput
    capacity: Literal["on_demand", "spot", "capacity_reservation"] = "on_demand"
    capacity_reservation_id: StrInput | None = None
    extra_security_group_ids: list[StrInput] = Field(default_factory=list)
    ami_id: AmiId | None = None
    user_data: str | None = Field(default=None, max_length=USER_DATA_LIMIT)
    root_volume_gib: int = Field(default=500, ge=30, le=16_384)
    root_device_name: str = "/dev/sda1"
    kms_key_id: StrInput | None = None
    ssm_access: bool = True
    # IMDS hop limit 2 instead of 1: containers on a bridge network reach the instance role.
    container_imds_access: bool = False
    # How many nodes run when: all of them all month, or on request / on a schedule (zero
    # otherwise), for a job that does not run all month.
    scaling: Scaling = Field(default_factory=Scaling)

    @field_validator("instance_type")
    @classmethod
    def _has_efa(cls, value: str) -> str:
        efa_interface_count(value)
        return value

    @model_validator(mode="after")
    def _reservation(self) -> PlacementClusterArgs:
        reservation = self.capacity_reservation_id
        if self.capacity == "capacity_reservation" and reservation is None:
            raise ValueError("capacity 'capacity_reservation' needs capacity_reservation_id")
        if self.capacity != "capacity_reservation" and reservation is not None:
            raise ValueError(
                f"capacity_reservation_id is only used with capacity 'capacity_reservation', "
                f"not {self.capacity!r}"
            )
        if (
            reservation is not None
            and is_known(reservation)
            and not CAPACITY_RESERVATION_ID.fullmatch(reservation)
        ):
            raise ValueError(f"{reservation!r} is not a capacity reservation id (cr-...)")
        return self


class PlacementCluster(pulumi.ComponentResource):
    placement_group_name: pulumi.Output[str]
    launch_template_id: pulumi.Output[str]
    autoscaling_group_name: pulumi.Output[str]
    security_group_id: pulumi.Output[str]
    instance_role_arn: pulumi.Output[str]

    def __init__(
        self, name: str, args: PlacementClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:aws:PlacementCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = args.tags.as_tags()

        placement = aws.ec2.PlacementGroup(
            f"{name}-pg", strategy=PLACEMENT_STRATEGY, tags=tags, opts=child
        )
        group = cluster_security_group(name, vpc_id=args.vpc_id, tags=tags, parent=self)
        role, profile = instance_profile(name, tags=tags, parent=self, ssm_access=args.ssm_access)
        template = gpu_launch_template(
            name,
            parent=self,
            tags=tags,
            image_id=image_id(args.ami_id, [args.instance_type], self),
            instance_type=args.instance_type,
            instance_profile_arn=profile.arn,
            network_interfaces=efa_network_interfaces(
                args.instance_type, [group.id, *args.extra_security_group_ids]
            ),
            root_volume_gib=args.root_volume_gib,
            root_device_name=args.root_device_name,
            kms_key_id=args.kms_key_id,
            user_data=args.user_data,
            capacity_reservation_id=args.capacity_reservation_id,
            container_imds_access=args.container_imds_access,
        )
        version = template.latest_version.apply(str)
        spot = args.capacity == "spot"
        asg = aws.autoscaling.Group(
            f"{name}-asg",
            vpc_zone_identifiers=[args.subnet_id],
            placement_group=placement.id,
            # A tightly coupled job runs all its nodes or none.
            min_size=args.scaling.initial_size(args.nodes),
            max_size=args.nodes,
            desired_capacity=args.scaling.initial_size(args.nodes),
            health_check_type="EC2",
            wait_for_capacity_timeout="0",
            launch_template=None
            if spot
            else aws.autoscaling.GroupLaunchTemplateArgs(id=template.id, version=version),
            mixed_instances_policy=None
            if not spot
            else aws.autoscaling.GroupMixedInstancesPolicyArgs(
                instances_distribution=aws.autoscaling.GroupMixedInstancesPolicyInstancesDistributionArgs(
                    on_demand_base_capacity=0,
                    on_demand_percentage_above_base_capacity=0,
                    # One type in one zone: capacity, not price, decides whether nodes last.
                    spot_allocation_strategy="capacity-optimized",
                ),
                launch_template=aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateArgs(
                    launch_template_specification=aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateLaunchTemplateSpecificationArgs(
                        launch_template_id=template.id, version=version
                    ),
                    overrides=[
                        aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateOverrideArgs(
                            instance_type=args.instance_type
                        )
                    ],
                ),
            ),
            tags=group_tags(tags, args.scaling),
            opts=group_options(self, args.scaling),
        )
        scale_group(name, asg, args.nodes, args.scaling, self)

        self.placement_group_name = placement.name
        self.launch_template_id = template.id
        self.autoscaling_group_name = asg.name
        self.security_group_id = group.id
        self.instance_role_arn = role.arn
        self.register_outputs(
            {
                "placement_group_name": placement.name,
                "launch_template_id": template.id,
                "autoscaling_group_name": asg.name,
                "security_group_id": group.id,
                "instance_role_arn": role.arn,
                "nodes": args.nodes,
                "efa_interfaces_per_node": efa_interface_count(args.instance_type),
            }
        )

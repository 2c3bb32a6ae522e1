"""CapacityPool: reserved GPU capacity in one availability zone, what runs in it, and a launch
template to use it.

An On-Demand Capacity Reservation holds ``instance_count`` instances of one type in one zone for
as long as it exists (or until ``end_date``), billed at the on-demand rate whether used or not —
the way to guarantee always-on serving or a training start date. ``instance_match_criteria`` is
``targeted``: only launches that name the reservation use it (the launch template here does, as
does ``PlacementCluster`` given ``capacity_reservation_id``), so stray on-demand instances never
eat it. Given ``subnet_id`` (in ``availability_zone``), the pool also runs its instances: an Auto
Scaling group of ``instance_count`` on that launch template, so the reservation is used rather
than billed idle; without it, launch from ``launch_template_id`` yourself. The reservation is
protected: ``pulumi destroy`` stops at it until someone removes the
protection deliberately.

Whatever launches from the template — the pool's group or your own launches — joins the pool's
own security group in ``vpc_id`` (nothing in, HTTPS out) and any ``extra_security_group_ids``,
named in the template: an instance never falls back to the VPC's default group, whose rules
nobody here chose. IMDSv2 with a hop limit of 1 (``container_imds_access=True`` for 2).

Capacity Blocks (``capacity_block``) reserve GPU clusters for a fixed future window at a price
paid upfront. gpufleet looks the offering up with ``aws.ec2.get_capacity_block_offering`` and
reports its id and fee, but buys it only when ``purchase_capacity_block=True`` is passed: the
purchase charges the whole fee at once, and a Capacity Block cannot be cancelled or deleted.
The purchased block is protected and retained on delete, since deleting it in Pulumi would not
refund it anyway. ``capacity_block_notice`` says which happened. A purchased block comes with
its own launch template (``capacity_block_launch_template_id``: market type
``capacity-block``, targeting the block, the same security groups, IMDS and encrypted disk),
so what runs in the block is held to the same defaults as what runs in the reservation.

Example::

    from gpufleet.components.aws.capacity_pool import (
        CapacityBlockRequest, CapacityPool, CapacityPoolArgs)

    pool = CapacityPool(
        "chat-serving",
        CapacityPoolArgs(
            tags=tags,
            instance_type="g6.xlarge",
            instance_count=2,
            availability_zone="us-east-1a",
            end_date="2027-06-30T00:00:00Z",
            subnet_id=subnet_a.id,  # run the two instances in it
            vpc_id=vpc.id,
        ),
    )
    # Look up (not buy) two p5 nodes for a week in March:
    block = CapacityPool("march-run", CapacityPoolArgs(
        tags=tags, instance_type="p5.48xlarge", instance_count=2, availability_zone="us-east-1a",
        vpc_id=vpc.id,
        capacity_block=CapacityBlockRequest(instance_count=2, duration_hours=168,
                                            start_date_range="2027-03-01T00:00:00Z")))
"""

from __future__ import annotations

import functools
import re
from datetime import datetime

import pulumi
import pulumi_aws as aws
from pydantic import Field, field_validator, model_validator

from gpufleet.components.aws.ami import AmiId, image_id
from gpufleet.components.aws.group_scaling import group_tags
from gpufleet.components.aws.instance_role import instance_profile
from gpufleet.components.aws.launch_template import (
    USER_DATA_LIMIT,
    gpu_launch_template,
    worker_network_interface,
)
from gpufleet.components.aws.security_group import worker_security_group
from gpufleet.components.component_args import ComponentArgs, StrInput
from gpufleet.components.scaling import Scaling
from gpufleet.components.tagging import RequiredTags, with_commitment
from gpufleet.planner.catalog import load_catalog
from gpufleet.pricing_models import Commitment

INSTANCE_PLATFORMS = frozenset(
    {
        "Linux/UNIX",
        "Red Hat Enterprise Linux",
        "SUSE Linux",
        "Windows",
        "Windows with SQL Server",
        "Windows with SQL Server Enterprise",
        "Windows with SQL Server Standard",
        "Windows with SQL Server Web",
    }
)
# Families EC2 sells as Capacity Blocks for ML (docs.aws.amazon.com/AWSEC2/latest/UserGuide/
# ec2-capacity-blocks.html).
CAPACITY_BLOCK_FAMILIES = frozenset({"p4d", "p5", "p5e", "p5en", "trn1", "trn2"})
# A Capacity Block lasts 1-14 days in 1-day steps, or up to 182 days in 7-day steps.
_DAY = 24
AVAILABILITY_ZONE = re.compile(r"[a-z]{2}(-[a-z]+)+-\d[a-z]")


def _rfc3339(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"{value!r} is not an RFC 3339 time such as 2027-06-30T00:00:00Z"
        ) from None
    if parsed.tzinfo is None:
        raise ValueError(f"{value!r} needs a time zone, e.g. a trailing Z for UTC")
    return value


class CapacityBlockRequest(ComponentArgs):
    instance_count: int = Field(ge=1, le=64)
    duration_hours: int
    start_date_range: str | None = None
    end_date_range: str | None = None

    @field_validator("duration_hours")
    @classmethod
    def _block_duration(cls, hours: int) -> int:
        days, rest = divmod(hours, _DAY)
        valid = rest == 0 and (1 <= days <= 14 or (14 < days <= 182 and days % 7 == 0))
        if not valid:
            raise ValueError(
                f"{hours} h is not a Capacity Block length: 24-336 h in 24 h steps, "
                "or up to 4368 h in 168 h steps"
            )
        return hours

    @field_validator("start_date_range", "end_date_range")
    @classmethod
    def _dates(cls, value: str | None) -> str | None:
        return _rfc3339(value)


class CapacityPoolArgs(ComponentArgs):
    tags: RequiredTags
    instance_type: str
    instance_count: int = Field(ge=1, le=10_000)
    availability_zone: str
    end_date: str | None = None
    instance_platform: str = "Linux/UNIX"
    # The VPC of the pool's security group, which every instance launched from its template
    # joins (no inbound, HTTPS out), with extra_security_group_ids for further reach.
    vpc_id: StrInput
    extra_security_group_ids: list[StrInput] = Field(default_factory=list)
    # Where the pool's instances run (a subnet in availability_zone); None: hold the capacity
    # only.
    subnet_id: StrInput | None = None
    ami_id: AmiId | None = None
    root_volume_gib: int = Field(default=200, ge=30, le=16_384)
    root_device_name: str = "/dev/sda1"
    kms_key_id: StrInput | None = None
    user_data: str | None = Field(default=None, max_length=USER_DATA_LIMIT)
    # IMDS hop limit 2 instead of 1: containers on a bridge network reach the instance role.
    container_imds_access: bool = False
    capacity_block: CapacityBlockRequest | None = None
    purchase_capacity_block: bool = False
    # The commitment that pays for the reservation, bought outside the stack (Savings Plan,
    # committed use discount, Azure reservation): tagged, so gpufleet cost prices it so.
    commitment: Commitment = "none"

    @field_validator("instance_type")
    @classmethod
    def _gpu_type(cls, value: str) -> str:
        if load_catalog().shape("aws", value) is None:
            raise ValueError(f"{value!r} is not an AWS GPU instance type in the catalog")
        return value

    @field_validator("availability_zone")
    @classmethod
    def _zone_name(cls, value: str) -> str:
        if not AVAILABILITY_ZONE.fullmatch(value):
            raise ValueError(f"{value!r} is not an availability zone name such as us-east-1a")
        return value

    @field_validator("instance_platform")
    @classmethod
    def _platform(cls, value: str) -> str:
        if value not in INSTANCE_PLATFORMS:
            raise ValueError(f"{value!r} is not one of {', '.join(sorted(INSTANCE_PLATFORMS))}")
        return value

    @field_validator("end_date")
    @classmethod
    def _end_date(cls, value: str | None) -> str | None:
        return _rfc3339(value)

    @model_validator(mode="after")
    def _capacity_block(self) -> CapacityPoolArgs:
        if self.purchase_capacity_block and self.capacity_block is None:
            raise ValueError("purchase_capacity_block needs capacity_block (what to buy)")
        family = self.instance_type.split(".", 1)[0]
        if self.capacity_block is not None and family not in CAPACITY_BLOCK_FAMILIES:
            raise ValueError(
                f"{self.instance_type} is not sold as Capacity Blocks; families: "
                f"{', '.join(sorted(CAPACITY_BLOCK_FAMILIES))}"
            )
        return self


class CapacityPool(pulumi.ComponentResource):
    capacity_reservation_id: pulumi.Output[str]
    capacity_reservation_arn: pulumi.Output[str]
    launch_template_id: pulumi.Output[str]
    autoscaling_group_name: pulumi.Output[str] | None
    security_group_id: pulumi.Output[str]
    instance_profile_arn: pulumi.Output[str]
    capacity_block_offering_id: pulumi.Output[str] | None
    capacity_block_upfront_fee: pulumi.Output[str] | None
    capacity_block_reservation_id: pulumi.Output[str] | None
    capacity_block_launch_template_id: pulumi.Output[str] | None
    capacity_block_notice: pulumi.Output[str] | None

    def __init__(
        self, name: str, args: CapacityPoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:aws:CapacityPool", name, None, opts)
        tags = args.tags.as_tags()

        reservation = aws.ec2.CapacityReservation(
            f"{name}-reservation",
            instance_type=args.instance_type,
            instance_count=args.instance_count,
            availability_zone=args.availability_zone,
            instance_platform=args.instance_platform,
            instance_match_criteria="targeted",
            end_date=args.end_date,
            end_date_type="limited" if args.end_date else "unlimited",
            ebs_optimized=True,
            tags=with_commitment(tags, args.commitment),
            opts=pulumi.ResourceOptions(parent=self, protect=True),
        )
        _, profile = instance_profile(name, tags=tags, parent=self)
        group = worker_security_group(name, vpc_id=args.vpc_id, tags=tags, parent=self)
        security_groups = [group.id, *args.extra_security_group_ids]
        launch_template = functools.partial(
            gpu_launch_template,
            parent=self,
            tags=tags,
            image_id=image_id(args.ami_id, [args.instance_type], self),
            instance_type=args.instance_type,
            instance_profile_arn=profile.arn,
            network_interfaces=[worker_network_interface(security_groups, public_ip=False)],
            root_volume_gib=args.root_volume_gib,
            root_device_name=args.root_device_name,
            kms_key_id=args.kms_key_id,
            user_data=args.user_data,
            container_imds_access=args.container_imds_access,
        )
        template = launch_template(name, capacity_reservation_id=reservation.id)

        self.autoscaling_group_name = None
        if args.subnet_id is not None:
            self.autoscaling_group_name = self._run_instances(
                name, args.subnet_id, args.instance_count, template, tags
            )

        self.capacity_reservation_id = reservation.id
        self.capacity_reservation_arn = reservation.arn
        self.launch_template_id = template.id
        self.security_group_id = group.id
        self.instance_profile_arn = profile.arn
        self.capacity_block_offering_id = None
        self.capacity_block_upfront_fee = None
        self.capacity_block_reservation_id = None
        self.capacity_block_launch_template_id = None
        self.capacity_block_notice = None
        if args.capacity_block is not None:
            self._capacity_block(name, args, args.capacity_block, tags, launch_template)
        self.register_outputs(
            {
                "capacity_reservation_id": reservation.id,
                "capacity_reservation_arn": reservation.arn,
                "launch_template_id": template.id,
                "autoscaling_group_name": self.autoscaling_group_name,
                "security_group_id": group.id,
                "instance_profile_arn": profile.arn,
                "capacity_block_offering_id": self.capacity_block_offering_id,
                "capacity_block_upfront_fee": self.capacity_block_upfront_fee,
                "capacity_block_reservation_id": self.capacity_block_reservation_id,
                "capacity_block_launch_template_id": self.capacity_block_launch_template_id,
                "capacity_block_notice": self.capacity_block_notice,
            }
        )

    def _run_instances(
        self,
        name: str,
        subnet_id: pulumi.Input[str],
        size: int,
        template: aws.ec2.LaunchTemplate,
        tags: dict[str, str],
    ) -> pulumi.Output[str]:
        """A fixed-size group in the reservation: its template targets the reservation, so
        every instance it launches is one the reservation already pays for."""
        group = aws.autoscaling.Group(
            f"{name}-asg",
            vpc_zone_identifiers=[subnet_id],
            min_size=size,
            max_size=size,
            desired_capacity=size,
            health_check_type="EC2",
            wait_for_capacity_timeout="0",
            launch_template=aws.autoscaling.GroupLaunchTemplateArgs(
                id=template.id, version=template.latest_version.apply(str)
            ),
            tags=group_tags(tags, Scaling()),
            opts=pulumi.ResourceOptions(parent=self),
        )
        return group.name

    def _capacity_block(
        self,
        name: str,
        args: CapacityPoolArgs,
        block: CapacityBlockRequest,
        tags: dict[str, str],
        launch_template: functools.partial[aws.ec2.LaunchTemplate],
    ) -> None:
        offering = aws.ec2.get_capacity_block_offering_output(
            instance_type=args.instance_type,
            instance_count=block.instance_count,
            capacity_duration_hours=block.duration_hours,
            start_date_range=block.start_date_range,
            end_date_range=block.end_date_range,
            opts=pulumi.InvokeOutputOptions(parent=self),
        )
        self.capacity_block_offering_id = offering.capacity_block_offering_id
        self.capacity_block_upfront_fee = offering.upfront_fee
        if not args.purchase_capacity_block:
            self.capacity_block_notice = pulumi.Output.all(
                offering.capacity_block_offering_id, offering.upfront_fee, offering.currency_code
            ).apply(
                lambda o: (
                    f"NOT PURCHASED: Capacity Block offering {o[0]} costs {o[1]} {o[2]} "
                    "upfront; pass purchase_capacity_block=True to buy it (charged at once, "
                    "cannot be cancelled or deleted)"
                )
            )
            return
        purchased = aws.ec2.CapacityBlockReservation(
            f"{name}-capacity-block",
            capacity_block_offering_id=offering.capacity_block_offering_id,
            instance_platform=args.instance_platform,
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self, protect=True, retain_on_delete=True),
        )
        self.capacity_block_reservation_id = purchased.id
        self.capacity_block_launch_template_id = launch_template(
            f"{name}-block", capacity_reservation_id=purchased.id, market_type="capacity-block"
        ).id
        self.capacity_block_notice = pulumi.Output.all(
            purchased.id, offering.upfront_fee, offering.currency_code
        ).apply(
            lambda o: (
                f"PURCHASED: Capacity Block {o[0]} charged {o[1]} {o[2]} at once; it "
                "cannot be cancelled or deleted"
            )
        )

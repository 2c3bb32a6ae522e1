"""SpotFleet: spot GPU capacity diversified over instance types, counted in GPUs.

Capacity source: an Auto Scaling group with a MixedInstancesPolicy, not ``aws.ec2.Fleet``. Both
launch diversified, weighted, price-capacity-optimized spot capacity; the group also gives
health-check replacement, capacity rebalancing (it launches a replacement on a rebalance
recommendation before the old instance is reclaimed), instance refresh when the AMI or user
data changes, and scaling by changing one number — and the provider updates it in place, where
many changes to an EC2 Fleet of type ``maintain`` replace it and its instances. AWS recommends
Auto Scaling groups over EC2 Fleet for workloads that keep a fleet running.

Capacity is counted in GPUs: each instance type's weighted capacity is its GPU count from the
catalog, so ``target_gpus=16`` is met by sixteen g6.xlarge or four g6.12xlarge, whichever spot
prices and capacity favour. ``max_price_per_gpu_hour`` is therefore a price per GPU-hour (the
group's spot max price is per capacity unit).

Interruptions: an EventBridge rule sends "EC2 Spot Instance Interruption Warning" and "EC2
Instance Rebalance Recommendation" events to an encrypted SQS queue (``interruption_queue_url``);
the instance role may read it, so a job can checkpoint inside the two-minute notice. The queue
uses SQS-managed encryption, or ``kms_key_id`` (which also encrypts the volumes); a
customer-managed key's policy must let ``events.amazonaws.com`` use it
(``kms:GenerateDataKey``, ``kms:Decrypt``), or EventBridge cannot deliver.

Secure defaults (``launch_template.py``, ``security_group.py``): IMDSv2 with a hop limit of 1
(``container_imds_access=True`` for 2), encrypted volumes, no public IP, and a security group of
its own — nothing in, HTTPS out — plus any ``extra_security_group_ids`` for further reach.

Example::

    from gpufleet.components.aws.spot_fleet import SpotFleet, SpotFleetArgs
    from gpufleet.components.tagging import RequiredTags

    fleet = SpotFleet(
        "eval-workers",
        SpotFleetArgs(
            tags=RequiredTags(project="acme-ml", owner="ml@acme.example", cost_center="cc-42",
                              environment="dev", workload="eval-workers"),
            instance_types=["g6.xlarge", "g6.2xlarge", "g5.xlarge"],
            target_gpus=8,
            vpc_id=vpc.id,
            subnet_ids=[subnet_a.id, subnet_b.id],
            max_price_per_gpu_hour=0.60,
        ),
    )
    pulumi.export("interruptions", fleet.interruption_queue_url)
"""

from __future__ import annotations

import json

import pulumi
import pulumi_aws as aws
from pydantic import Field, field_validator, model_validator

from gpufleet.components.aws.ami import AmiId, architecture, dlami_parameter, image_id
from gpufleet.components.aws.group_scaling import (
    follow_base_load,
    group_options,
    group_tags,
    scale_group,
)
from gpufleet.components.aws.instance_role import instance_profile
from gpufleet.components.aws.launch_template import (
    USER_DATA_LIMIT,
    gpu_launch_template,
    worker_network_interface,
)
from gpufleet.components.aws.security_group import worker_security_group
from gpufleet.components.component_args import ComponentArgs, StrInput
from gpufleet.components.scaling import Scaling
from gpufleet.components.tagging import RequiredTags
from gpufleet.planner.catalog import load_catalog

SPOT_ALLOCATION_STRATEGY = "price-capacity-optimized"
INTERRUPTION_EVENTS = (
    "EC2 Spot Instance Interruption Warning",
    "EC2 Instance Rebalance Recommendation",
)


class SpotFleetArgs(ComponentArgs):
    tags: RequiredTags
    instance_types: list[str] = Field(min_length=1, max_length=20)
    target_gpus: int = Field(ge=1, le=100_000)
    vpc_id: StrInput
    subnet_ids: list[StrInput] = Field(min_length=1)
    on_demand_base_gpus: int = Field(default=0, ge=0)
    # Of the GPUs above the base, the share on-demand (100: an on-demand group that scales).
    on_demand_percent: int = Field(default=0, ge=0, le=100)
    max_price_per_gpu_hour: float | None = Field(default=None, gt=0)
    ami_id: AmiId | None = None
    user_data: str | None = Field(default=None, max_length=USER_DATA_LIMIT)
    root_volume_gib: int = Field(default=200, ge=30, le=16_384)
    root_device_name: str = "/dev/sda1"
    kms_key_id: StrInput | None = None
    public_ip: bool = False
    ssm_access: bool = True
    # Groups the instances join besides their own (no inbound, HTTPS out): further reach out,
    # such as NFS to EFS or a proxy.
    extra_security_group_ids: list[StrInput] = Field(default_factory=list)
    # IMDS hop limit 2 instead of 1: containers on a bridge network reach the instance role.
    container_imds_access: bool = False
    # How the group's size changes: fixed at target_gpus, or scaled (on request, on load, on a
    # schedule) between zero and target_gpus.
    scaling: Scaling = Field(default_factory=Scaling)
    # on_load: the always-on Auto Scaling group whose load (average CPU) sizes this burst.
    base_group_name: StrInput | None = None

    @field_validator("instance_types")
    @classmethod
    def _known_gpu_types(cls, value: list[str]) -> list[str]:
        catalog = load_catalog()
        unknown = [t for t in value if catalog.shape("aws", t) is None]
        if unknown:
            raise ValueError(f"not AWS GPU instance types in the catalog: {', '.join(unknown)}")
        if len(set(value)) != len(value):
            raise ValueError("lists an instance type twice")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> SpotFleetArgs:
        if (self.scaling.mode == "on_load") != (self.base_group_name is not None):
            raise ValueError(
                "scaling on_load and base_group_name go together: a burst scales on its "
                "always-on base's load (a group at zero has no load of its own)"
            )
        if self.scaling.scales and self.on_demand_base_gpus:
            raise ValueError(
                "on_demand_base_gpus applies to a fixed group: one that scales to zero has no "
                "base (use on_demand_percent)"
            )
        if self.on_demand_base_gpus > self.target_gpus:
            raise ValueError(
                f"on_demand_base_gpus ({self.on_demand_base_gpus}) exceeds target_gpus "
                f"({self.target_gpus})"
            )
        if self.ami_id is None:
            dlami_parameter(self.instance_types)
        elif len({architecture(t) for t in self.instance_types}) > 1:
            raise ValueError("instance_types mix arm64 and x86_64; one AMI cannot boot both")
        return self

    def gpu_weights(self) -> dict[str, int]:
        catalog = load_catalog()
        return {t: catalog.shape("aws", t).gpu_count for t in self.instance_types}  # type: ignore[union-attr]


class SpotFleet(pulumi.ComponentResource):
    launch_template_id: pulumi.Output[str]
    autoscaling_group_name: pulumi.Output[str]
    security_group_id: pulumi.Output[str]
    instance_role_arn: pulumi.Output[str]
    interruption_queue_url: pulumi.Output[str]
    interruption_queue_arn: pulumi.Output[str]

    def __init__(
        self, name: str, args: SpotFleetArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:aws:SpotFleet", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = args.tags.as_tags()
        weights = args.gpu_weights()

        queue = aws.sqs.Queue(
            f"{name}-interruptions",
            message_retention_seconds=3600,
            sqs_managed_sse_enabled=None if args.kms_key_id else True,
            kms_master_key_id=args.kms_key_id,
            tags=tags,
            opts=child,
        )
        rule = aws.cloudwatch.EventRule(
            f"{name}-interruption-rule",
            description="spot interruption warnings and rebalance recommendations",
            event_pattern=json.dumps(
                {"source": ["aws.ec2"], "detail-type": list(INTERRUPTION_EVENTS)}
            ),
            tags=tags,
            opts=child,
        )
        aws.sqs.QueuePolicy(
            f"{name}-interruptions-policy",
            queue_url=queue.url,
            policy=pulumi.Output.all(queue.arn, rule.arn).apply(
                lambda arns: _events_may_send(arns[0], arns[1])
            ),
            opts=child,
        )
        aws.cloudwatch.EventTarget(
            f"{name}-interruption-target", rule=rule.name, arn=queue.arn, opts=child
        )

        group = worker_security_group(name, vpc_id=args.vpc_id, tags=tags, parent=self)
        role, profile = instance_profile(
            name,
            tags=tags,
            parent=self,
            ssm_access=args.ssm_access,
            inline_policies={"read-interruptions": queue.arn.apply(_read_queue)},
        )
        template = gpu_launch_template(
            name,
            parent=self,
            tags=tags,
            image_id=image_id(args.ami_id, args.instance_types, self),
            instance_profile_arn=profile.arn,
            network_interfaces=[
                worker_network_interface(
                    [group.id, *args.extra_security_group_ids], public_ip=args.public_ip
                )
            ],
            root_volume_gib=args.root_volume_gib,
            root_device_name=args.root_device_name,
            kms_key_id=args.kms_key_id,
            user_data=args.user_data,
            container_imds_access=args.container_imds_access,
        )
        scaling = args.scaling
        asg = aws.autoscaling.Group(
            f"{name}-asg",
            vpc_zone_identifiers=list(args.subnet_ids),
            desired_capacity_type="units",
            desired_capacity=scaling.initial_size(args.target_gpus),
            min_size=0,
            # In GPUs, like the desired capacity. Weighted, the group exceeds it by at most one
            # instance when a type's GPUs do not divide it (AWS allows up to the largest weight).
            max_size=args.target_gpus,
            capacity_rebalance=True,
            health_check_type="EC2",
            wait_for_capacity_timeout="0",
            mixed_instances_policy=aws.autoscaling.GroupMixedInstancesPolicyArgs(
                instances_distribution=aws.autoscaling.GroupMixedInstancesPolicyInstancesDistributionArgs(
                    on_demand_base_capacity=args.on_demand_base_gpus,
                    on_demand_percentage_above_base_capacity=args.on_demand_percent,
                    on_demand_allocation_strategy="lowest-price",
                    spot_allocation_strategy=SPOT_ALLOCATION_STRATEGY,
                    spot_max_price=None
                    if args.max_price_per_gpu_hour is None
                    else f"{args.max_price_per_gpu_hour:.4f}",
                ),
                launch_template=aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateArgs(
                    launch_template_specification=aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateLaunchTemplateSpecificationArgs(
                        launch_template_id=template.id,
                        version=template.latest_version.apply(str),
                    ),
                    overrides=[
                        aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateOverrideArgs(
                            instance_type=itype, weighted_capacity=str(gpus)
                        )
                        for itype, gpus in weights.items()
                    ],
                ),
            ),
            tags=group_tags(tags, scaling),
            opts=group_options(self, scaling),
        )
        scale_group(name, asg, args.target_gpus, scaling, self)
        if args.base_group_name is not None:
            # One instance at a time: the smallest type's GPUs, the group's capacity unit.
            follow_base_load(name, asg, args.base_group_name, min(weights.values()), tags, self)

        self.launch_template_id = template.id
        self.autoscaling_group_name = asg.name
        self.security_group_id = group.id
        self.instance_role_arn = role.arn
        self.interruption_queue_url = queue.url
        self.interruption_queue_arn = queue.arn
        self.register_outputs(
            {
                "launch_template_id": template.id,
                "autoscaling_group_name": asg.name,
                "security_group_id": group.id,
                "instance_role_arn": role.arn,
                "interruption_queue_url": queue.url,
                "interruption_queue_arn": queue.arn,
                "target_gpus": args.target_gpus,
                "gpu_weights": weights,
            }
        )


def _events_may_send(queue_arn: str, rule_arn: str) -> str:
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Principal": {"Service": "events.amazonaws.com"},
                    "Action": "sqs:SendMessage",
                    "Resource": queue_arn,
                    "Condition": {"ArnEquals": {"aws:SourceArn": rule_arn}},
                }
            ],
        }
    )


def _read_queue(queue_arn: str) -> str:
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": [
                        "sqs:ReceiveMessage",
                        "sqs:DeleteMessage",
                        "sqs:ChangeMessageVisibility",
                        "sqs:GetQueueAttributes",
                    ],
                    "Resource": queue_arn,
                }
            ],
        }
    )

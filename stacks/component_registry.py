"""How each component is built from a stack config: its builder, beside what it can realize.

What a component can realize (placements, pricing models, scalings, managed service, site
settings) is ``planner.capabilities``, read by the planner, ``gpufleet generate`` and
``gpufleet scale`` without pulumi. Here each component gets ``build``: its args from the
workload's placement, the part and the site settings, returning the ids the stack exports.
``COMPONENTS`` joins the two, one entry per capability; a test fails while one lacks the other.

Adding a component: its module under ``components/<cloud>/``, its capability, its builder
here (CONTRIBUTING, "Add a component"); it is then placed by ``placement_parts``, built by the
program and checked by the registry-wide tests (``tests/stacks/test_component_registry.py``:
built from a config, its GPUs seen by the policies, its exports resolved). Component modules
are imported only when built, so listing the registry never imports pulumi.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gpufleet.planner.capabilities import CAPABILITIES, Capability
from gpufleet.planner.gcp_machines import takes_attached_gpus
from gpufleet.pricing_models import TERM_OF_PRICING, Commitment
from gpufleet.stacks.stack_config import (
    AwsRegion,
    AwsSubnet,
    Part,
    Site,
    StackConfigError,
    WorkloadPlacement,
    site_region,
)

if TYPE_CHECKING:
    import pulumi

    from gpufleet.components.azure.spot_scale_set import SpotScaleSet
    from gpufleet.components.gcp.spot_group import GroupBurst, SpotGroup
    from gpufleet.components.replica_slots import SlotLayout
    from gpufleet.components.scaling import Scaling
    from gpufleet.components.tagging import RequiredTags

# The exports that name a part's group, which a burst on load reads from its base's.
AUTOSCALING_GROUP = "autoscalingGroup"
SCALE_SET = "scaleSet"
INSTANCE_GROUP_MANAGER = "instanceGroupManager"
# The component holding a GCP base's group, which also runs its burst on load.
GROUP_COMPONENT = "groupComponent"

# AWS Deep Learning Containers: PyTorch training image, published in every commercial region
# by account 763104351884 (github.com/aws/deep-learning-containers, available_images.md).
SAGEMAKER_PYTORCH_IMAGE = (
    "763104351884.dkr.ecr.{region}.amazonaws.com/"
    "pytorch-training:2.5.1-gpu-py311-cu124-ubuntu22.04-sagemaker"
)


@dataclass(frozen=True)
class BuildContext:
    """What an entry builds one part from."""

    name: str  # the component's resource name
    workload: WorkloadPlacement
    part: Part
    tags: RequiredTags
    site: Site
    opts: pulumi.ResourceOptions  # the workload's provider
    # What the workload's base part exported (empty for the base itself): a burst on load
    # follows the base's group.
    base_ids: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ComponentEntry:
    """A component: what it can realize (its capability) and how it is built."""

    capability: Capability
    build: Callable[[BuildContext], dict[str, Any]]


def part_scaling(ctx: BuildContext) -> Scaling:
    """How the part's size changes, for the component that builds it."""
    from gpufleet.components.scaling import Scaling, WeeklyRun

    part, schedule = ctx.part, ctx.workload.schedule
    if part.scaling == "schedule":
        if schedule is None:
            raise StackConfigError(
                f"gpufleet:workloads: {ctx.workload.name} has a part on a schedule but no "
                "schedule; run gpufleet generate again"
            )
        return Scaling(
            mode="schedule",
            time_zone=schedule.time_zone,
            runs=[WeeklyRun(start_minute=r.start_minute, minutes=r.minutes) for r in schedule.runs],
        )
    return Scaling(mode=part.scaling, expected_hours=part.expected_hours)


def _base_id(ctx: BuildContext, key: str) -> Any:
    """The base part's export ``key`` (its group), which a burst on load follows."""
    found = ctx.base_ids.get(key)
    if found is None:
        raise StackConfigError(
            f"gpufleet:workloads: {ctx.workload.name}'s burst scales on its base's load, and "
            f"its base ({ctx.workload.parts[0].component}) exports no {key}; run gpufleet "
            "generate again"
        )
    return found


def _chosen(**settings: Any) -> dict[str, Any]:
    """The optional ``site:`` settings the user set, as component arguments: an unset one
    leaves the component's own default (its secure default) in force."""
    return {key: value for key, value in settings.items() if value is not None}


def slot_layout(workload: WorkloadPlacement) -> SlotLayout | None:
    """The replica slots of the workload's instances, as the components boot them; None for
    one replica an instance."""
    from gpufleet.components.replica_slots import SlotLayout

    slots = workload.replica_slots
    if slots is None:
        return None
    shared = slots.shared
    if shared is None:
        return SlotLayout(
            workload.name, slots.per_instance, workload.gpus_per_instance, slots.gpus_each
        )
    return SlotLayout(
        workload.name,
        slots.per_instance,
        workload.gpus_per_instance,
        gpu_name=workload.gpu,
        mode=shared.mode,
        per_gpu=shared.per_gpu,
        mig_profiles=tuple(shared.mig_profiles or ()),
        memory_gib=shared.memory_gib,
        compute_percent=shared.compute_percent,
    )


def _boot(ctx: BuildContext) -> str | None:
    """The boot script of a workload whose instances each run several replicas (their
    devices per slot, the GPUs shared first); None for one replica an instance."""
    from gpufleet.components.replica_slots import boot_script

    layout = slot_layout(ctx.workload)
    return None if layout is None else boot_script(layout)


def _commitment(ctx: BuildContext) -> Commitment:
    """The commitment the plan prices a reserved part with (bought outside the stack, or on
    GCP in it when ``site:gcp`` says ``purchaseCommitments``)."""
    return TERM_OF_PRICING.get(ctx.part.pricing, "none")


# --- AWS -----------------------------------------------------------------------------------


def _aws_region(ctx: BuildContext) -> AwsRegion:
    return site_region(ctx.site.aws().regions, "aws", ctx.workload.region)


def _zone_subnet(region: AwsRegion, zone_id: str) -> AwsSubnet | None:
    return next((s for s in region.subnets if s.zone_id == zone_id), None)


def _aws_instances(ctx: BuildContext, region: AwsRegion) -> dict[str, Any]:
    """What every AWS component running instances takes: the region's further security groups
    and whether containers reach the instance metadata service (site settings), and the boot
    script of packed replicas."""
    return {
        "extra_security_group_ids": list(region.security_group_ids),
        **_chosen(container_imds_access=ctx.site.aws().container_imds_access, user_data=_boot(ctx)),
    }


def _build_spot_fleet(ctx: BuildContext) -> dict[str, Any]:
    from gpufleet.components.aws.spot_fleet import SpotFleet, SpotFleetArgs

    w, part, region = ctx.workload, ctx.part, _aws_region(ctx)
    zones = {s.zone_id for s in region.subnets}
    if part.pricing == "spot" and len(zones) == 1:
        # The plan prices a fleet's spot over the region's zones (it may run in any); a fleet
        # in one zone pays that zone's price, or finds no spot there at all.
        raise StackConfigError(
            f"site:aws: regions.{w.region}.subnets are all in zone {zones.pop()}: {w.name}'s "
            "spot fleet is priced over the region's zones, so it needs subnets in at least "
            "two of them"
        )
    gpus = part.instances * w.gpus_per_instance
    scaling = part_scaling(ctx)
    on_demand = part.pricing == "on_demand"
    fleet = SpotFleet(
        ctx.name,
        SpotFleetArgs(
            tags=ctx.tags,
            instance_types=[w.instance_type],
            target_gpus=gpus,
            vpc_id=region.vpc_id,
            subnet_ids=[s.id for s in region.subnets],
            on_demand_base_gpus=gpus if on_demand and not scaling.scales else 0,
            on_demand_percent=100 if on_demand and scaling.scales else 0,
            scaling=scaling,
            base_group_name=_base_id(ctx, AUTOSCALING_GROUP) if scaling.mode == "on_load" else None,
            max_price_per_gpu_hour=None
            if w.max_price_per_hour is None
            else w.max_price_per_hour / w.gpus_per_instance,
            **_aws_instances(ctx, region),
        ),
        ctx.opts,
    )
    return {AUTOSCALING_GROUP: fleet.autoscaling_group_name}


def _build_placement_cluster(ctx: BuildContext) -> dict[str, Any]:
    from gpufleet.components.aws.placement_cluster import PlacementCluster, PlacementClusterArgs

    w, part, region = ctx.workload, ctx.part, _aws_region(ctx)
    subnet = _zone_subnet(region, w.zone)
    if subnet is None:
        raise StackConfigError(
            f"site:aws: regions.{w.region}.subnets has none in zone {w.zone}, where the "
            f"plan puts {w.name}'s cluster"
        )
    cluster = PlacementCluster(
        ctx.name,
        PlacementClusterArgs(
            tags=ctx.tags,
            instance_type=w.instance_type,
            nodes=part.instances,
            vpc_id=region.vpc_id,
            subnet_id=subnet.id,
            capacity="spot" if part.pricing == "spot" else "on_demand",
            scaling=part_scaling(ctx),
            **_aws_instances(ctx, region),
        ),
        ctx.opts,
    )
    return {
        "placementGroup": cluster.placement_group_name,
        AUTOSCALING_GROUP: cluster.autoscaling_group_name,
    }


def _build_capacity_pool(ctx: BuildContext) -> dict[str, Any]:
    from gpufleet.components.aws.capacity_pool import CapacityPool, CapacityPoolArgs

    w, region = ctx.workload, _aws_region(ctx)
    subnet = _zone_subnet(region, w.zone) or region.subnets[0]
    pool = CapacityPool(
        ctx.name,
        CapacityPoolArgs(
            tags=ctx.tags,
            instance_type=w.instance_type,
            instance_count=ctx.part.instances,
            availability_zone=subnet.zone,
            commitment=_commitment(ctx),
            # The always-on base runs in its reservation (not beside it, billed twice).
            subnet_id=subnet.id,
            vpc_id=region.vpc_id,
            **_aws_instances(ctx, region),
        ),
        ctx.opts,
    )
    return {
        "capacityReservationId": pool.capacity_reservation_id,
        AUTOSCALING_GROUP: pool.autoscaling_group_name,
    }


def _build_sagemaker_spot_training(ctx: BuildContext) -> dict[str, Any]:
    from gpufleet.components.aws.sagemaker_spot_training import (
        SageMakerSpotTraining,
        SageMakerSpotTrainingArgs,
    )

    w = ctx.workload
    # SageMaker needs no site settings: an image and a log bucket may come from site:aws.
    aws_site = ctx.site.aws_site
    chosen = aws_site.sage_maker_image_uri if aws_site else None
    image = chosen or SAGEMAKER_PYTORCH_IMAGE.format(region=w.region)
    job = SageMakerSpotTraining(
        ctx.name,
        SageMakerSpotTrainingArgs(
            tags=ctx.tags,
            instance_type=w.instance_type,
            instance_count=ctx.part.instances,
            image_uri=image,
            expected_hours=ctx.part.expected_hours,
            # On-demand where the plan is: the spec says the job must not be interrupted.
            spot=ctx.part.pricing == "spot",
            **_chosen(access_log_bucket=aws_site.access_log_bucket if aws_site else None),
        ),
        ctx.opts,
    )
    return {"checkpointBucket": job.checkpoint_bucket_name, "roleArn": job.role_arn}


# --- GCP -----------------------------------------------------------------------------------


def _attached_gpus(w: WorkloadPlacement) -> tuple[str | None, int | None]:
    """(gpu, gpu_count) for N1 machines, which take attached GPUs; (None, None) for machine
    types that carry theirs."""
    if takes_attached_gpus(w.instance_type):
        return w.gpu, w.gpus_per_instance
    return None, None


def _spot_group(ctx: BuildContext, name: str, **settings: Any) -> SpotGroup:
    """The workload's ``SpotGroup`` named ``name``: its machine, zone and network, one VM per
    instance of the part, with ``settings`` (pricing, scaling, reservation)."""
    from gpufleet.components.gcp.spot_group import SpotGroup, SpotGroupArgs

    w, site = ctx.workload, ctx.site.gcp()
    region = site_region(site.regions, "gcp", w.region)
    gpu, gpu_count = _attached_gpus(w)
    args = SpotGroupArgs(
        tags=ctx.tags,
        machine_type=w.instance_type,
        region=w.region,
        zones=[w.zone],
        target_size=ctx.part.instances,
        source_image=site.source_image,
        project=site.project,
        network=region.network,
        subnetwork=region.subnetwork,
        gpu=gpu,
        gpu_count=gpu_count,
        **_chosen(disk_kms_key=region.disk_kms_key, startup_script=_boot(ctx)),
        **settings,
    )
    return SpotGroup(name, args, ctx.opts)


def _carried_burst(ctx: BuildContext) -> GroupBurst | None:
    """For a GCP base part, the serving burst on load above it, which its group carries as a
    second version (a GCP autoscaler reads only its own group's load)."""
    from gpufleet.components.gcp.spot_group import GroupBurst

    parts = ctx.workload.parts
    if ctx.part is not parts[0] or len(parts) < 2 or parts[1].scaling != "on_load":
        return None
    burst = parts[1]
    return GroupBurst(
        instances=burst.instances,
        provisioning_model="SPOT" if burst.pricing == "spot" else "STANDARD",
        # The stack config's models make sure a burst on load has its expected hours.
        expected_hours=burst.expected_hours or 0.0,
    )


def _build_spot_group(ctx: BuildContext) -> dict[str, Any]:
    if ctx.part.scaling == "on_load":
        # Built by the base, as its group's burst version: the part is that component's.
        return {
            "name": _base_id(ctx, GROUP_COMPONENT),
            INSTANCE_GROUP_MANAGER: _base_id(ctx, INSTANCE_GROUP_MANAGER),
            "version": "burst",
        }
    group = _spot_group(
        ctx,
        ctx.name,
        provisioning_model="SPOT" if ctx.part.pricing == "spot" else "STANDARD",
        scaling=part_scaling(ctx),
        burst=_carried_burst(ctx),
    )
    return {
        INSTANCE_GROUP_MANAGER: group.instance_group_manager_self_link,
        GROUP_COMPONENT: ctx.name,
    }


def _build_compact_cluster(ctx: BuildContext) -> dict[str, Any]:
    from gpufleet.components.gcp.compact_cluster import CompactCluster, CompactClusterArgs

    w, site = ctx.workload, ctx.site.gcp()
    region = site_region(site.regions, "gcp", w.region)
    cluster = CompactCluster(
        ctx.name,
        CompactClusterArgs(
            tags=ctx.tags,
            machine_type=w.instance_type,
            nodes=ctx.part.instances,
            zone=w.zone,
            source_image=site.source_image,
            provisioning="SPOT" if ctx.part.pricing == "spot" else "STANDARD",
            project=site.project,
            network=region.network,
            subnetwork=region.subnetwork,
            scaling=part_scaling(ctx),
            **_chosen(disk_kms_key=region.disk_kms_key, startup_script=_boot(ctx)),
        ),
        ctx.opts,
    )
    return {"resourcePolicy": cluster.resource_policy_self_link}


def _build_reservation_pool(ctx: BuildContext) -> dict[str, Any]:
    from gpufleet.components.gcp.reservation_pool import ReservationPool, ReservationPoolArgs

    w, site = ctx.workload, ctx.site.gcp()
    gpu, gpu_count = _attached_gpus(w)
    pool = ReservationPool(
        ctx.name,
        ReservationPoolArgs(
            tags=ctx.tags,
            machine_type=w.instance_type,
            zone=w.zone,
            count=ctx.part.instances,
            project=site.project,
            gpu=gpu,
            gpu_count=gpu_count,
            commitment=_commitment(ctx),
            purchase_commitment=site.purchase_commitments and _commitment(ctx) != "none",
        ),
        ctx.opts,
    )
    # The always-on base runs in the reservation: standard VMs of the reservation's machine,
    # in its zone, consuming it by name (and above them, its burst, if any).
    name = f"{ctx.name}-vms"
    group = _spot_group(
        ctx,
        name,
        provisioning_model="STANDARD",
        reservation=pool.reservation_name,
        burst=_carried_burst(ctx),
    )
    return {
        "reservation": pool.reservation_name,
        INSTANCE_GROUP_MANAGER: group.instance_group_manager_self_link,
        GROUP_COMPONENT: name,
    }


# --- Azure ---------------------------------------------------------------------------------


def _build_low_priority_cluster(ctx: BuildContext) -> dict[str, Any]:
    from gpufleet.components.azure.low_priority_cluster import (
        LowPriorityCluster,
        LowPriorityClusterArgs,
    )

    w = ctx.workload
    region = site_region(ctx.site.azure().regions, "azure", w.region)
    cluster = LowPriorityCluster(
        ctx.name,
        LowPriorityClusterArgs(
            tags=ctx.tags,
            resource_group_name=region.resource_group_name,
            location=w.region,
            vm_size=w.instance_type,
            max_nodes=ctx.part.instances,
            # A part planned all month holds its nodes; otherwise the cluster scales from 0.
            min_nodes=ctx.part.instances if ctx.part.scaling == "fixed" else 0,
            vm_priority="LowPriority" if ctx.part.pricing == "spot" else "Dedicated",
            workspace_name=region.workspace_name,
            subnet_id=region.subnet_id,
            expected_hours=ctx.part.expected_hours,
            expected_runs=ctx.part.expected_runs,
            **_chosen(
                workspace_public_network_access=region.workspace_public_network_access,
                storage_shared_key_access=region.storage_shared_key_access,
            ),
        ),
        ctx.opts,
    )
    return {"compute": cluster.compute_name, "workspace": cluster.workspace_name}


def _build_capacity_reservation_group(ctx: BuildContext) -> dict[str, Any]:
    from gpufleet.components.azure.capacity_reservation_group import (
        CapacityReservationGroup,
        CapacityReservationGroupArgs,
    )

    w = ctx.workload
    region = site_region(ctx.site.azure().regions, "azure", w.region)
    group = CapacityReservationGroup(
        ctx.name,
        CapacityReservationGroupArgs(
            tags=ctx.tags,
            resource_group_name=region.resource_group_name,
            location=w.region,
            vm_size=w.instance_type,
            regional_capacity=ctx.part.instances,
            commitment=_commitment(ctx),
        ),
        ctx.opts,
    )
    # The always-on base runs in the group: a pay-as-you-go scale set of its size (regional
    # group, so a set without zones).
    scale_set = _scale_set(
        ctx, f"{ctx.name}-vms", priority="Regular", capacity_reservation_group_id=group.group_id
    )
    return {"capacityReservationGroup": group.group_id, SCALE_SET: scale_set.scale_set_id}


def _scale_set(ctx: BuildContext, name: str, **settings: Any) -> SpotScaleSet:
    """The workload's ``SpotScaleSet`` named ``name``: its size, network and key, one VM per
    instance of the part, with ``settings`` (priority, scaling, reservation group)."""
    from gpufleet.components.azure.spot_scale_set import SpotScaleSet, SpotScaleSetArgs

    w, site = ctx.workload, ctx.site.azure()
    region = site_region(site.regions, "azure", w.region)
    if site.ssh_public_key is None:
        raise StackConfigError(
            "site:azure: sshPublicKey is not set; scale set VMs take SSH keys only"
        )
    args = SpotScaleSetArgs(
        tags=ctx.tags,
        resource_group_name=region.resource_group_name,
        location=w.region,
        vm_size=w.instance_type,
        instances=ctx.part.instances,
        subnet_id=region.subnet_id,
        ssh_public_key=site.ssh_public_key,
        **_chosen(encryption_at_host=site.encryption_at_host, custom_data=_boot(ctx)),
        **settings,
    )
    return SpotScaleSet(name, args, ctx.opts)


def _build_spot_scale_set(ctx: BuildContext) -> dict[str, Any]:
    scale_set = _scale_set(
        ctx,
        ctx.name,
        priority="Spot" if ctx.part.pricing == "spot" else "Regular",
        proximity_placement_group=ctx.workload.kind != "inference" and ctx.part.instances > 1,
        scaling=part_scaling(ctx),
        base_scale_set_id=_base_id(ctx, SCALE_SET) if ctx.part.scaling == "on_load" else None,
    )
    return {SCALE_SET: scale_set.scale_set_id}


# --- the registry --------------------------------------------------------------------------

_BUILDERS: dict[str, Callable[[BuildContext], dict[str, Any]]] = {
    "aws:SpotFleet": _build_spot_fleet,
    "aws:PlacementCluster": _build_placement_cluster,
    "aws:CapacityPool": _build_capacity_pool,
    "aws:SageMakerSpotTraining": _build_sagemaker_spot_training,
    "gcp:SpotGroup": _build_spot_group,
    "gcp:CompactCluster": _build_compact_cluster,
    "gcp:ReservationPool": _build_reservation_pool,
    "azure:LowPriorityCluster": _build_low_priority_cluster,
    "azure:SpotScaleSet": _build_spot_scale_set,
    "azure:CapacityReservationGroup": _build_capacity_reservation_group,
}

# A capability without a builder (or the other way round) is a test failure naming it
# (tests/stacks/test_component_registry.py), not an import error of every command.
COMPONENTS: dict[str, ComponentEntry] = {
    name: ComponentEntry(capability, _BUILDERS[name])
    for name, capability in CAPABILITIES.items()
    if name in _BUILDERS
}
UNBUILT: frozenset[str] = frozenset(CAPABILITIES) ^ frozenset(_BUILDERS)

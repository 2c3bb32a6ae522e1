"""The gpufleet Pulumi program: stack config in, one component per planned part out.

``build_stack(settings, site)`` creates one explicit provider per cloud and region the plan
uses (the stack config turns the default providers off for those clouds, so nothing can land
in an account or region by accident), then per workload the components its parts name (see
``placement_parts``), parented to nothing but scoped to their provider. It returns, per
workload, what was built and its key ids; ``__main__`` exports that.

Missing site settings (a VPC for a region the plan chose, a GCP image) are errors naming the
config key to set, raised before any resource of that workload registers.
"""

from __future__ import annotations

from typing import Any, TypeVar

import pulumi
from pydantic import BaseModel, ValidationError

from gpufleet.components.tagging import RequiredTags
from gpufleet.stacks.stack_config import (
    SITE_MODELS,
    AwsSite,
    AzureSite,
    GcpSite,
    Part,
    ProviderSetting,
    StackSettings,
    WorkloadPlacement,
    validation_problems,
)

# AWS Deep Learning Containers: PyTorch training image, published in every commercial region
# by account 763104351884 (github.com/aws/deep-learning-containers, available_images.md).
SAGEMAKER_PYTORCH_IMAGE = (
    "763104351884.dkr.ecr.{region}.amazonaws.com/"
    "pytorch-training:2.5.1-gpu-py311-cu124-ubuntu22.04-sagemaker"
)


SiteT = TypeVar("SiteT", bound=BaseModel)
RegionT = TypeVar("RegionT")


class StackConfigError(ValueError):
    """The stack config lacks or contradicts what the program needs (a ``site:`` setting
    missing, a ``gpufleet:`` key edited by hand)."""


def load_site(raw: dict[str, Any]) -> dict[str, BaseModel]:
    """Validate ``site:<cloud>`` values; StackConfigError naming the key and field."""
    site: dict[str, BaseModel] = {}
    for cloud, model in SITE_MODELS.items():
        if raw.get(cloud) is None:
            continue
        try:
            site[cloud] = model.model_validate(raw[cloud])
        except ValidationError as exc:
            raise StackConfigError(validation_problems(exc, f"site:{cloud}.")) from None
    return site


def build_stack(settings: StackSettings, site: dict[str, BaseModel]) -> dict[str, Any]:
    providers = {p.name: _provider(p, site) for p in settings.providers}
    built: dict[str, Any] = {}
    for workload in settings.workloads:
        if workload.provider not in providers:
            raise StackConfigError(
                f"gpufleet:workloads: {workload.name} uses provider {workload.provider!r}, "
                "which gpufleet:providers does not define; run gpufleet generate again"
            )
        tags = RequiredTags(
            project=settings.project,
            owner=settings.owner,
            cost_center=settings.cost_center,
            environment=settings.environment,
            workload=workload.name,
            workload_kind=workload.kind,
            extra=workload.tags,
        )
        opts = pulumi.ResourceOptions(providers=[providers[workload.provider]])
        parts = []
        for index, part in enumerate(workload.parts):
            name = workload.name if index == 0 else f"{workload.name}-burst"
            ids = _build_part(name, workload, part, tags, site, opts)
            parts.append({"component": part.component, "name": name, **ids})
        built[workload.name] = {
            "cloud": workload.cloud,
            "region": workload.region,
            "instanceType": workload.instance_type,
            "parts": parts,
        }
    return built


def _provider(setting: ProviderSetting, site: dict[str, BaseModel]) -> pulumi.ProviderResource:
    if setting.cloud == "aws":
        import pulumi_aws as aws

        return aws.Provider(setting.name, region=setting.region)
    if setting.cloud == "gcp":
        import pulumi_gcp as gcp

        gcp_site = _site(site, "gcp", GcpSite)
        return gcp.Provider(setting.name, project=gcp_site.project, region=setting.region)
    import pulumi_azure_native as azure

    azure_site = site.get("azure")
    subscription = azure_site.subscription_id if isinstance(azure_site, AzureSite) else None
    return azure.Provider(setting.name, location=setting.region, subscription_id=subscription)


def _site(site: dict[str, BaseModel], cloud: str, model: type[SiteT]) -> SiteT:
    value = site.get(cloud)
    if not isinstance(value, model):
        raise StackConfigError(
            f"site:{cloud} is not set in this stack's config; the plan uses {cloud} "
            "(see the README, Deploying: site settings)"
        )
    return value


def _region(regions: dict[str, RegionT], cloud: str, region: str) -> RegionT:
    if region not in regions:
        known = ", ".join(sorted(regions)) or "none"
        raise StackConfigError(
            f"site:{cloud}: regions has no {region} (the plan places work there; have: {known})"
        )
    return regions[region]


def _build_part(
    name: str,
    w: WorkloadPlacement,
    part: Part,
    tags: RequiredTags,
    site: dict[str, BaseModel],
    opts: pulumi.ResourceOptions,
) -> dict[str, Any]:
    cloud, component = part.component.split(":")
    if cloud == "aws":
        return _build_aws(name, component, w, part, tags, _site(site, "aws", AwsSite), opts)
    if cloud == "gcp":
        return _build_gcp(name, component, w, part, tags, _site(site, "gcp", GcpSite), opts)
    return _build_azure(name, component, w, part, tags, _site(site, "azure", AzureSite), opts)


def _build_aws(
    name: str,
    component: str,
    w: WorkloadPlacement,
    part: Part,
    tags: RequiredTags,
    site: AwsSite,
    opts: pulumi.ResourceOptions,
) -> dict[str, Any]:
    if component == "SageMakerSpotTraining":
        from gpufleet.components.aws.sagemaker_spot_training import (
            SageMakerSpotTraining,
            SageMakerSpotTrainingArgs,
        )

        image = site.sage_maker_image_uri or SAGEMAKER_PYTORCH_IMAGE.format(region=w.region)
        job = SageMakerSpotTraining(
            name,
            SageMakerSpotTrainingArgs(
                tags=tags,
                instance_type=w.instance_type,
                instance_count=part.instances,
                image_uri=image,
            ),
            opts,
        )
        return {"checkpointBucket": job.checkpoint_bucket_name, "roleArn": job.role_arn}
    region = _region(site.regions, "aws", w.region)
    zone_subnet = next((s for s in region.subnets if s.zone_id == w.zone), None)
    if component == "SpotFleet":
        from gpufleet.components.aws.spot_fleet import SpotFleet, SpotFleetArgs

        gpus = part.instances * w.gpus_per_instance
        fleet = SpotFleet(
            name,
            SpotFleetArgs(
                tags=tags,
                instance_types=[w.instance_type],
                target_gpus=gpus,
                vpc_id=region.vpc_id,
                subnet_ids=[s.id for s in region.subnets],
                on_demand_base_gpus=gpus if part.pricing == "on_demand" else 0,
                max_price_per_gpu_hour=None
                if w.max_price_per_hour is None
                else w.max_price_per_hour / w.gpus_per_instance,
            ),
            opts,
        )
        return {"autoscalingGroup": fleet.autoscaling_group_name}
    if component == "PlacementCluster":
        from gpufleet.components.aws.placement_cluster import (
            PlacementCluster,
            PlacementClusterArgs,
        )

        if zone_subnet is None:
            raise StackConfigError(
                f"site:aws: regions.{w.region}.subnets has none in zone {w.zone}, where the "
                f"plan puts {w.name}'s cluster"
            )
        cluster = PlacementCluster(
            name,
            PlacementClusterArgs(
                tags=tags,
                instance_type=w.instance_type,
                nodes=part.instances,
                vpc_id=region.vpc_id,
                subnet_id=zone_subnet.id,
                capacity="spot" if part.pricing == "spot" else "on_demand",
            ),
            opts,
        )
        return {
            "placementGroup": cluster.placement_group_name,
            "autoscalingGroup": cluster.autoscaling_group_name,
        }
    from gpufleet.components.aws.capacity_pool import CapacityPool, CapacityPoolArgs

    pool = CapacityPool(
        name,
        CapacityPoolArgs(
            tags=tags,
            instance_type=w.instance_type,
            instance_count=part.instances,
            availability_zone=(zone_subnet or region.subnets[0]).zone,
        ),
        opts,
    )
    return {"capacityReservationId": pool.capacity_reservation_id}


def _build_gcp(
    name: str,
    component: str,
    w: WorkloadPlacement,
    part: Part,
    tags: RequiredTags,
    site: GcpSite,
    opts: pulumi.ResourceOptions,
) -> dict[str, Any]:
    attached = w.instance_type.startswith("n1-")
    gpu = {"gpu": w.gpu, "gpu_count": w.gpus_per_instance} if attached else {}
    if component == "ReservationPool":
        from gpufleet.components.gcp.reservation_pool import ReservationPool, ReservationPoolArgs

        pool = ReservationPool(
            name,
            ReservationPoolArgs(
                tags=tags,
                machine_type=w.instance_type,
                zone=w.zone,
                count=part.instances,
                project=site.project,
                **gpu,
            ),
            opts,
        )
        return {"reservation": pool.reservation_name}
    region = _region(site.regions, "gcp", w.region)
    network = {"network": region.network, "subnetwork": region.subnetwork}
    if component == "CompactCluster":
        from gpufleet.components.gcp.compact_cluster import CompactCluster, CompactClusterArgs

        cluster = CompactCluster(
            name,
            CompactClusterArgs(
                tags=tags,
                machine_type=w.instance_type,
                nodes=part.instances,
                zone=w.zone,
                source_image=site.source_image,
                provisioning="SPOT" if part.pricing == "spot" else "STANDARD",
                project=site.project,
                **network,
            ),
            opts,
        )
        return {"resourcePolicy": cluster.resource_policy_self_link}
    from gpufleet.components.gcp.spot_group import SpotGroup, SpotGroupArgs

    group = SpotGroup(
        name,
        SpotGroupArgs(
            tags=tags,
            machine_type=w.instance_type,
            region=w.region,
            zones=[w.zone],
            target_size=part.instances,
            source_image=site.source_image,
            provisioning_model="SPOT" if part.pricing == "spot" else "STANDARD",
            project=site.project,
            **network,
            **gpu,
        ),
        opts,
    )
    return {"instanceGroupManager": group.instance_group_manager_self_link}


def _build_azure(
    name: str,
    component: str,
    w: WorkloadPlacement,
    part: Part,
    tags: RequiredTags,
    site: AzureSite,
    opts: pulumi.ResourceOptions,
) -> dict[str, Any]:
    region = _region(site.regions, "azure", w.region)
    common = {
        "tags": tags,
        "resource_group_name": region.resource_group_name,
        "location": w.region,
        "vm_size": w.instance_type,
    }
    if component == "LowPriorityCluster":
        from gpufleet.components.azure.low_priority_cluster import (
            LowPriorityCluster,
            LowPriorityClusterArgs,
        )

        cluster = LowPriorityCluster(
            name,
            LowPriorityClusterArgs(
                **common,
                max_nodes=part.instances,
                vm_priority="LowPriority" if part.pricing == "spot" else "Dedicated",
                workspace_name=region.workspace_name,
                subnet_id=region.subnet_id,
            ),
            opts,
        )
        return {"compute": cluster.compute_name, "workspace": cluster.workspace_name}
    if component == "CapacityReservationGroup":
        from gpufleet.components.azure.capacity_reservation_group import (
            CapacityReservationGroup,
            CapacityReservationGroupArgs,
        )

        group = CapacityReservationGroup(
            name, CapacityReservationGroupArgs(**common, regional_capacity=part.instances), opts
        )
        return {"capacityReservationGroup": group.group_id}
    from gpufleet.components.azure.spot_scale_set import SpotScaleSet, SpotScaleSetArgs

    if site.ssh_public_key is None:
        raise StackConfigError(
            "site:azure: sshPublicKey is not set; scale set VMs take SSH keys only"
        )
    scale_set = SpotScaleSet(
        name,
        SpotScaleSetArgs(
            **common,
            instances=part.instances,
            subnet_id=region.subnet_id,
            ssh_public_key=site.ssh_public_key,
            priority="Spot" if part.pricing == "spot" else "Regular",
            proximity_placement_group=w.kind != "inference" and part.instances > 1,
        ),
        opts,
    )
    return {"scaleSet": scale_set.scale_set_id}

"""What a stack config (``stacks/Pulumi.<env>.yaml``) holds, as pydantic models.

Two namespaces, two owners:

``gpufleet:`` — written by ``gpufleet generate`` from the plan, never by hand (regeneration
replaces it): the environment, the required tags, the environment's limits, one explicit
provider per cloud and region in use, and per workload its resolved placement and the parts
(components) that build it.

``site:`` — written by you, kept by regeneration: what already exists in your accounts that
the components plug into (networks, subnets, resource groups, images, keys):

.. code-block:: yaml

    site:aws:
      regions:
        us-west-2:
          vpcId: vpc-0123456789abcdef0
          subnets:            # private subnets, one per availability zone you use
            - {id: subnet-0aaaaaaaaaaaaaaaa, zoneId: usw2-az1, zone: us-west-2a}
          securityGroupIds: [sg-0123456789abcdef0]   # optional: more reach out (EFS, a proxy)
      sageMakerImageUri: ...  # optional; default: the AWS PyTorch training image
      containerImdsAccess: true   # optional: IMDS hop limit 2 for containers (default 1)
      accessLogBucket: acme-s3-access-logs   # optional; default: a log bucket per checkpoint bucket
    site:gcp:
      project: acme-ml-prod
      sourceImage: projects/deeplearning-platform-release/global/images/family/...
      regions:
        us-east4: {network: projects/acme-ml-prod/global/networks/ml,
                   subnetwork: projects/acme-ml-prod/regions/us-east4/subnetworks/ml,
                   diskKmsKey: projects/acme-kms/locations/us-east4/keyRings/ml/cryptoKeys/disks}
      purchaseCommitments: true   # optional: the stack buys its reservations' commitments
    site:azure:
      subscriptionId: 00000000-0000-0000-0000-000000000000
      sshPublicKey: ssh-ed25519 AAAA... ops@acme
      encryptionAtHost: false    # optional: only where the subscription cannot (default true)
      regions:
        eastus2: {resourceGroupName: rg-ml, subnetId: /subscriptions/.../subnets/gpu,
                  workspaceName: mlw-prod}   # workspaceName optional: created if absent

The optional settings loosen or tighten a component's secure defaults (docs/components.md, "Secure
defaults against Checkov"); unset, the component's own default holds.

Config keys are camelCase, as Pulumi's own are. This module imports no pulumi: ``generate``
uses it too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from gpufleet.clouds import Cloud
from gpufleet.planner.capabilities import CAPABILITIES, ScalingMode, known_component
from gpufleet.planner.gpu_sharing import MAX_CLIENTS, ShareMode
from gpufleet.planner.mig_profiles import placed
from gpufleet.planner.schedules import check_time_zone
from gpufleet.pricing_models import Commitment, Pricing
from gpufleet.stacks import config_keys
from gpufleet.workload_kinds import Kind

SiteT = TypeVar("SiteT", bound="ConfigModel")


# A component's name (``planner/capabilities.py``), e.g. "aws:SpotFleet".
ComponentName = Annotated[str, AfterValidator(known_component)]


class ConfigModel(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True
    )


class ProviderSetting(ConfigModel):
    name: str
    cloud: Cloud
    region: str


class Part(ConfigModel):
    """One component that builds (part of) a workload: the base, or the burst above it."""

    component: ComponentName
    instances: int = Field(ge=0)
    pricing: Pricing
    # How its size changes (``planner.hours``): fixed, on request, on load, on the schedule;
    # for on request and on load, the hours a month the plan expects it at its size.
    scaling: ScalingMode = "fixed"
    expected_hours: float | None = Field(default=None, ge=0)
    # On request, the runs a month the plan expects, where each run adds idle time (an Azure
    # ML cluster waits idle before it scales down): ``planner.hours.runs_per_month``.
    expected_runs: int | None = Field(default=None, ge=0)


class ScheduledRun(ConfigModel):
    start_minute: int = Field(ge=0)  # after Monday 00:00, local time
    minutes: int = Field(ge=1)


class ScheduleSetting(ConfigModel):
    """A workload's weekly schedule, as the components take it."""

    time_zone: Annotated[str, AfterValidator(check_time_zone)]
    runs: list[ScheduledRun] = Field(min_length=1)


class SharedGpuSetting(ConfigModel):
    """How replicas share each GPU (``planner/gpu_sharing.py``)."""

    mode: ShareMode
    per_gpu: int = Field(ge=2, le=MAX_CLIENTS)
    # MIG: one GPU's instances, one per replica, in the order they are created.
    mig_profiles: list[str] | None = None
    # MPS: each replica's pinned memory limit and share of the SMs.
    memory_gib: float | None = Field(default=None, gt=0)
    compute_percent: int | None = Field(default=None, ge=1, le=100)


class ReplicaSlots(ConfigModel):
    """Replicas (serving) or workers (batch) the plan packs onto each instance, each on its own
    whole GPUs or sharing them (``planner/packing.py``; the instances boot with
    ``components/replica_slots.py``)."""

    per_instance: int = Field(ge=2, le=1024)
    gpus_each: int | None = Field(default=None, ge=1)
    shared: SharedGpuSetting | None = None


class WorkloadPlacement(ConfigModel):
    name: str
    kind: Kind
    cloud: Cloud
    region: str
    zone: str
    instance_type: str
    gpu: str
    gpus_per_instance: int = Field(ge=1)
    # Absent: one replica (or node) an instance, on all its GPUs.
    replica_slots: ReplicaSlots | None = None
    provider: str
    parts: list[Part] = Field(min_length=1)
    tags: dict[str, str] = Field(default_factory=dict)
    max_price_per_hour: float | None = None
    schedule: ScheduleSetting | None = None
    # Named in config_keys: gpufleet cost reads it back without pydantic.
    monthly_usd: float = Field(
        validation_alias=config_keys.PLANNED_MONTHLY_USD,
        serialization_alias=config_keys.PLANNED_MONTHLY_USD,
    )

    @model_validator(mode="after")
    def _slots_fit(self) -> WorkloadPlacement:
        """Slots take whole GPUs or share them, within the instance's GPUs; a MIG layout is
        one NVIDIA's rules allow on the workload's GPU."""
        slots = self.replica_slots
        if slots is None:
            return self
        shared, gpus = slots.shared, self.gpus_per_instance
        if (slots.gpus_each is None) == (shared is None):
            raise ValueError("replicaSlots: give gpusEach (whole GPUs) or shared, not both")
        if slots.gpus_each is not None and slots.per_instance * slots.gpus_each > gpus:
            raise ValueError(
                f"replicaSlots: {slots.per_instance} slots of {slots.gpus_each} GPU(s) do not fit "
                f"on {gpus} GPUs an instance"
            )
        if shared is None:
            return self
        if slots.per_instance > gpus * shared.per_gpu:
            raise ValueError(
                f"replicaSlots: {slots.per_instance} slots do not fit {shared.per_gpu} a GPU on "
                f"{gpus} GPUs"
            )
        profiles = shared.mig_profiles or []
        if (shared.mode == "mig") != bool(profiles):
            raise ValueError("replicaSlots.shared: migProfiles go with mode mig, and only with it")
        if profiles and (len(profiles) != shared.per_gpu or placed(self.gpu, profiles) is None):
            raise ValueError(
                f"replicaSlots.shared.migProfiles: {', '.join(profiles)} is not a MIG layout a "
                f"{self.gpu} takes ({shared.per_gpu} a GPU)"
            )
        return self

    @model_validator(mode="after")
    def _parts_fit(self) -> WorkloadPlacement:
        """Each part is built on the workload's cloud by a component that can follow its
        scaling (``follows``, ``planner/capabilities.py``)."""
        elsewhere = [
            p.component for p in self.parts if CAPABILITIES[p.component].cloud != self.cloud
        ]
        if elsewhere:
            raise ValueError(
                f"parts {', '.join(elsewhere)} are not {self.cloud} components "
                "(the workload's cloud)"
            )
        for index, part in enumerate(self.parts):
            if part.scaling in ("on_request", "on_load") and part.expected_hours is None:
                raise ValueError(
                    f"{part.component} on {part.scaling} needs expectedHours (the plan's use)"
                )
            if part.scaling == "on_load" and (index == 0 or self.parts[0].scaling != "fixed"):
                raise ValueError(
                    f"{part.component} on_load is a burst: it follows an always-on (fixed) base "
                    "part before it"
                )
            follows = CAPABILITIES[part.component].follows
            if part.scaling != "fixed" and part.scaling not in follows:
                can = ", ".join(sorted({"fixed", *follows}))
                raise ValueError(
                    f"{part.component} cannot follow scaling {part.scaling} (it follows: {can})"
                )
        return self


class Limits(ConfigModel):
    max_gpus_per_workload: int | None = None
    # Named in config_keys: the policy pack reads these back without pydantic.
    allowed_gpus: list[str] | None = Field(
        default=None,
        validation_alias=config_keys.ALLOWED_GPUS,
        serialization_alias=config_keys.ALLOWED_GPUS,
    )
    monthly_budget_usd: float | None = Field(
        default=None,
        validation_alias=config_keys.MONTHLY_BUDGET_USD,
        serialization_alias=config_keys.MONTHLY_BUDGET_USD,
    )
    allow_on_demand: bool
    max_commitment: Commitment


class StackSettings(ConfigModel):
    """Everything under ``gpufleet:`` in a stack config."""

    environment: str
    project: str
    owner: str
    cost_center: str
    catalog_as_of: str
    limits: Limits
    providers: list[ProviderSetting]
    workloads: list[WorkloadPlacement]
    # The commitment discounts the plan priced reserved capacity with, when the spec sets its
    # own (config_keys names the key: the cost engine reads it back without pydantic).
    commitment_discounts: dict[Cloud, dict[Pricing, float]] | None = Field(
        default=None,
        validation_alias=config_keys.COMMITMENT_DISCOUNTS,
        serialization_alias=config_keys.COMMITMENT_DISCOUNTS,
    )


def setting_keys() -> dict[str, bool]:
    """Each key under ``gpufleet:`` a ``StackSettings`` field reads, and whether the stack
    config holds it as a string (else as a mapping or list, which Pulumi stores as JSON)."""
    return {
        field.alias: field.annotation is str
        for field in StackSettings.model_fields.values()
        if field.alias is not None
    }


class AwsSubnet(ConfigModel):
    id: str
    zone_id: str
    zone: str


class AwsRegion(ConfigModel):
    vpc_id: str
    subnets: list[AwsSubnet] = Field(min_length=1)
    # Groups every instance in the region joins besides its component's own (which lets
    # nothing in and only HTTPS out): NFS to EFS or FSx, a proxy, plain-HTTP mirrors.
    security_group_ids: list[str] = Field(default_factory=list)


class AwsSite(ConfigModel):
    regions: dict[str, AwsRegion] = Field(default_factory=dict)
    sage_maker_image_uri: str | None = None
    # IMDS hop limit 2 instead of 1, for images whose containers use the instance role.
    container_imds_access: bool | None = None
    # The bucket checkpoint buckets' access logs go to (same account and region as they);
    # unset: a log bucket beside each.
    access_log_bucket: str | None = None


class GcpRegion(ConfigModel):
    network: str
    subnetwork: str
    # The Cloud KMS key (in this region) that encrypts the VMs' boot disks; unset:
    # Google-managed keys.
    disk_kms_key: str | None = None


class GcpSite(ConfigModel):
    project: str
    source_image: str
    regions: dict[str, GcpRegion] = Field(default_factory=dict)
    # Buy the committed-use discount each reserved part's plan assumes, in the stack (a
    # ReservationPool's purchase_commitment): a contract of 1 or 3 years. Default: bought
    # outside the stack, and priced at on-demand until held (site:commitments).
    purchase_commitments: bool = False


class AzureRegion(ConfigModel):
    resource_group_name: str
    subnet_id: str
    workspace_name: str | None = None
    # For a workspace gpufleet creates (no workspaceName): open to public networks, and whether
    # its storage account takes shared keys.
    workspace_public_network_access: bool | None = None
    storage_shared_key_access: bool | None = None


class AzureSite(ConfigModel):
    subscription_id: str | None = None
    ssh_public_key: str | None = None
    # Scale sets' encryption at host; false where the subscription or the size cannot.
    encryption_at_host: bool | None = None
    regions: dict[str, AzureRegion] = Field(default_factory=dict)


SITE_MODELS: dict[Cloud, type[ConfigModel]] = {"aws": AwsSite, "gcp": GcpSite, "azure": AzureSite}

RegionT = TypeVar("RegionT")


class StackConfigError(ValueError):
    """The stack config lacks or contradicts what the program needs (a ``site:`` setting
    missing, a ``gpufleet:`` key edited by hand)."""


@dataclass(frozen=True)
class Site:
    """The ``site:`` settings of a stack, validated; each cloud's is asked for when a part on
    that cloud needs it, and its absence is an error naming the key to set."""

    aws_site: AwsSite | None = None
    gcp_site: GcpSite | None = None
    azure_site: AzureSite | None = None

    def aws(self) -> AwsSite:
        return _required(self.aws_site, "aws")

    def gcp(self) -> GcpSite:
        return _required(self.gcp_site, "gcp")

    def azure(self) -> AzureSite:
        return _required(self.azure_site, "azure")


def _required(value: SiteT | None, cloud: Cloud) -> SiteT:
    if value is None:
        raise StackConfigError(
            f"site:{cloud} is not set in this stack's config; the plan uses {cloud} "
            "(see docs/stacks.md, Site settings)"
        )
    return value


def site_region(regions: dict[str, RegionT], cloud: Cloud, region: str) -> RegionT:
    """The site settings of one region; StackConfigError naming the key when absent."""
    if region not in regions:
        known = ", ".join(sorted(regions)) or "none"
        raise StackConfigError(
            f"site:{cloud}: regions has no {region} (the plan places work there; have: {known})"
        )
    return regions[region]


def load_site(raw: dict[str, Any]) -> Site:
    """Validate ``site:<cloud>`` values (None where unset); StackConfigError naming the key and
    field."""
    found: dict[str, Any] = {}
    for cloud, model in SITE_MODELS.items():
        if raw.get(cloud) is None:
            continue
        try:
            found[f"{cloud}_site"] = model.model_validate(raw[cloud])
        except ValidationError as exc:
            raise StackConfigError(validation_problems(exc, f"site:{cloud}.")) from None
    return Site(**found)


def validation_problems(error: ValidationError, prefix: str) -> str:
    """One line naming each bad config key: ``<prefix><path>: <message>; ...``."""
    return "; ".join(
        f"{prefix}{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()
    )

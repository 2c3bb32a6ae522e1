"""SpotGroup: GCP Spot VMs with GPUs in a regional managed instance group.

An instance template with ``provisioning_model=SPOT`` (Spot VMs: no fixed 24 h limit like
preemptible VMs, 60-91% off), ``automatic_restart=false`` and ``on_host_maintenance=TERMINATE``
as GCP requires of them, ``instance_termination_action`` ``DELETE`` by default (stateless
workers: a reclaimed VM is recreated by the group; use ``STOP`` to keep its disk) and an
optional ``max_run_duration``; plus a regional managed instance group holding ``target_size``
VMs across the given zones. GPUs come with the machine type (A2, A3, G2) or are attached to N1
machines (``gpu``, ``gpu_count``), checked against GCP's pairing rules
(``planner/gcp_machines.py``).
Given ``reservation`` (a ``ReservationPool``'s name), the template consumes that specific
reservation: the always-on base of serving runs in the capacity held (and paid) for it.
Given ``burst`` (serving above an always-on base), the group runs two versions: the base's
``target_size`` VMs from its own template (fixed, in the reservation if any) and, from a second
template (Spot by default), up to ``burst.instances`` more, which the group's autoscaler adds
and removes on the whole group's average CPU. GCP's autoscaler reads only its own group's
per-instance metrics, so a burst in a group of its own, at zero, would have no signal to start
it: the burst is a version of the base's group instead.
Secure defaults from ``instance_settings.py``: no external IP, shielded VM, OS Login, a
dedicated service account with minimal scopes; boot disks encrypted with Google-managed keys, or
with your Cloud KMS key given ``disk_kms_key`` (why that is not the default: there). Every VM and
disk carries the required labels.

Example::

    from gpufleet.components.gcp.spot_group import SpotGroup, SpotGroupArgs

    evals = SpotGroup(
        "eval-harness",
        SpotGroupArgs(
            tags=tags,
            machine_type="g2-standard-8",
            region="us-central1",
            zones=["us-central1-a", "us-central1-b"],
            target_size=4,
            network=network.id,
            subnetwork=subnetwork.id,
            source_image="projects/deeplearning-platform-release/global/images/family/"
            "common-cu124-debian-11",
        ),
    )
"""

from __future__ import annotations

import re
from typing import Literal

import pulumi
import pulumi_gcp as gcp
from pydantic import Field, model_validator

from gpufleet.components.component_args import ComponentArgs, StrInput
from gpufleet.components.gcp import instance_settings as vm
from gpufleet.components.gcp.group_scaling import burst_autoscaler, region_autoscaler
from gpufleet.components.gcp.run_guard import run_guard
from gpufleet.components.scaling import Scaling
from gpufleet.components.tagging import RequiredTags
from gpufleet.planner.gcp_machines import MachineGpus, machine_gpus
from gpufleet.pricing_models import HOURS_PER_MONTH

MAX_RUN_SECONDS = 120 * 24 * 3600  # GCP's ceiling for max_run_duration
GCP_REGION = re.compile(r"[a-z]+-[a-z]+\d+")
ProvisioningModel = Literal["SPOT", "STANDARD"]


class GroupBurst(ComponentArgs):
    """Serving above the group's always-on size: up to ``instances`` more VMs, added on load."""

    instances: int = Field(ge=1, le=10_000)
    # Spot unless the workload cannot be interrupted.
    provisioning_model: ProvisioningModel = "SPOT"
    # Hours a month the plan expects the burst to run at its size (for the cost engine).
    expected_hours: float = Field(ge=0, le=HOURS_PER_MONTH)


class SpotGroupArgs(ComponentArgs):
    tags: RequiredTags
    machine_type: str
    gpu: str | None = None
    gpu_count: int | None = None
    region: str
    zones: list[vm.GcpZone] = Field(min_length=1)
    target_size: int = Field(ge=0, le=10_000)
    network: StrInput
    subnetwork: StrInput
    source_image: str = Field(min_length=1)
    boot_disk_gib: int = Field(default=200, ge=10, le=65_536)
    boot_disk_type: Literal["pd-balanced", "pd-ssd", "hyperdisk-balanced"] = "pd-balanced"
    termination_action: Literal["STOP", "DELETE"] = "DELETE"
    # STANDARD is for the rare single-node work the planner puts on on-demand VMs (not
    # interruptible); the group is otherwise identical, so it stays one component.
    provisioning_model: ProvisioningModel = "SPOT"
    max_run_seconds: int | None = Field(default=None, ge=30, le=MAX_RUN_SECONDS)
    startup_script: str | None = None
    scopes: list[str] = Field(default_factory=lambda: list(vm.DEFAULT_SCOPES))
    secure_boot: bool = False
    # The Cloud KMS key that encrypts the boot disks (CMEK); None: Google-managed keys.
    disk_kms_key: vm.KmsKey | None = None
    project: str | None = None
    # The reservation (a ``ReservationPool``'s name) its VMs consume: always-on capacity held
    # for it. GCP runs only standard VMs in a reservation, and a reservation is in one zone.
    reservation: StrInput | None = None
    # How the group's size changes: fixed at target_size, or (with an autoscaler) on request,
    # on load or on a schedule between zero and target_size.
    scaling: Scaling = Field(default_factory=Scaling)
    # Above an always-on target_size, a burst on the group's load (a second version).
    burst: GroupBurst | None = None

    @model_validator(mode="after")
    def _consistent(self) -> SpotGroupArgs:
        self.gpus()
        if not GCP_REGION.fullmatch(self.region):
            raise ValueError(f"region {self.region!r} is not a GCP region such as us-central1")
        outside = [z for z in self.zones if z.rsplit("-", 1)[0] != self.region]
        if outside:
            raise ValueError(f"zones {outside} are not in region {self.region}")
        self.tags.as_labels()
        if self.scaling.mode == "on_load":
            raise ValueError(
                "a GCP group cannot scale on another group's load (an autoscaler reads its own "
                "group's per-instance metrics); give the base group a burst instead"
            )
        if self.burst is not None and (self.scaling.mode != "fixed" or self.target_size < 1):
            raise ValueError(
                "a burst goes above an always-on base: scaling fixed and target_size of 1 or more"
            )
        if self.reservation is not None and (
            self.provisioning_model != "STANDARD" or len(self.zones) != 1
        ):
            raise ValueError(
                "reservation needs provisioning_model STANDARD and the reservation's one zone"
            )
        return self

    def gpus(self) -> MachineGpus:
        return machine_gpus(self.machine_type, self.gpu, self.gpu_count)


class SpotGroup(pulumi.ComponentResource):
    instance_template_self_link: pulumi.Output[str]
    burst_template_self_link: pulumi.Output[str] | None
    instance_group_manager_self_link: pulumi.Output[str]
    instance_group: pulumi.Output[str]
    service_account_email: pulumi.Output[str]
    # On request: the Cloud Tasks queue that ends a run (``run_guard``).
    guard_queue: pulumi.Output[str] | None = None

    def __init__(
        self, name: str, args: SpotGroupArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:gcp:SpotGroup", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        gpus = args.gpus()
        scaling = args.scaling

        account = vm.service_account(name, parent=self, project=args.project)
        template = _template(
            f"{name}-template", args, account, args.provisioning_model, args.reservation, self
        )
        versions: list[gcp.compute.RegionInstanceGroupManagerVersionArgsDict] = [
            {"name": "primary", "instance_template": template.self_link_unique}
        ]
        burst_template = None
        if args.burst is not None:
            burst_template = _template(
                f"{name}-burst-template", args, account, args.burst.provisioning_model, None, self
            )
            # The base keeps its size in its own version; the burst version has the rest.
            versions = [
                {
                    "name": "base",
                    "instance_template": template.self_link_unique,
                    "target_size": {"fixed": args.target_size},
                },
                {"name": "burst", "instance_template": burst_template.self_link_unique},
            ]
        sized_elsewhere = scaling.scales or args.burst is not None
        group = gcp.compute.RegionInstanceGroupManager(
            f"{name}-group",
            project=args.project,
            region=args.region,
            base_instance_name=name[:50],
            distribution_policy_zones=args.zones,
            # Spot capacity: take it in whichever listed zone has it.
            distribution_policy_target_shape="ANY",
            # A group that scales starts at zero; then its autoscaler sizes it.
            target_size=scaling.initial_size(args.target_size),
            versions=versions,
            update_policy={
                "type": "PROACTIVE",
                "minimal_action": "REPLACE",
                "instance_redistribution_type": "NONE",
                "max_surge_fixed": 0,
                "max_unavailable_fixed": max(len(args.zones), 1),
            },
            wait_for_instances=False,
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=["target_size"])
            if sized_elsewhere
            else child,
        )
        if args.burst is not None:
            burst_autoscaler(
                name,
                group.id,
                args.target_size,
                args.burst.instances,
                args.burst.expected_hours,
                region=args.region,
                project=args.project,
                parent=self,
            )
        if scaling.mode == "on_request":
            guard = run_guard(name, group, region=args.region, project=args.project, parent=self)
            self.guard_queue = guard.queue.id
        if scaling.scales:
            region_autoscaler(
                name,
                group.id,
                args.target_size,
                scaling,
                region=args.region,
                project=args.project,
                parent=self,
            )

        self.instance_template_self_link = template.self_link
        self.burst_template_self_link = None if burst_template is None else burst_template.self_link
        self.instance_group_manager_self_link = group.self_link
        self.instance_group = group.instance_group
        self.service_account_email = account.email
        self.register_outputs(
            {
                "instance_template_self_link": template.self_link,
                "instance_group_manager_self_link": group.self_link,
                "instance_group": group.instance_group,
                "service_account_email": account.email,
                "gpus_per_vm": gpus.count,
                "gpu": gpus.gpu_name,
                "guard_queue": self.guard_queue,
            }
        )


def _template(
    name: str,
    args: SpotGroupArgs,
    account: gcp.serviceaccount.Account,
    provisioning_model: ProvisioningModel,
    reservation: StrInput | None,
    parent: pulumi.Resource,
) -> gcp.compute.InstanceTemplate:
    """One of the group's instance templates: its machine, disk, network and account, Spot or
    standard, in a reservation or not."""
    labels = args.tags.as_labels()
    return gcp.compute.InstanceTemplate(
        name,
        name_prefix=f"{name[:37]}-",
        project=args.project,
        region=args.region,
        machine_type=args.machine_type,
        guest_accelerators=vm.accelerators(args.gpus()),
        disks=[
            vm.template_boot_disk(
                image=args.source_image,
                size_gib=args.boot_disk_gib,
                disk_type=args.boot_disk_type,
                labels=labels,
                kms_key=args.disk_kms_key,
            )
        ],
        network_interfaces=[vm.network_interface(args.network, args.subnetwork)],
        scheduling=vm.scheduling(
            spot=provisioning_model == "SPOT",
            termination_action=args.termination_action,
            max_run_seconds=args.max_run_seconds,
        ),
        shielded_instance_config=vm.shielded(args.secure_boot),
        reservation_affinity=None if reservation is None else vm.reservation_affinity(reservation),
        service_account=vm.account(account.email, args.scopes),
        metadata=vm.METADATA,
        metadata_startup_script=args.startup_script,
        labels=labels,
        # The group points at the template: make the new one before deleting the old.
        opts=pulumi.ResourceOptions(parent=parent, delete_before_replace=False),
    )

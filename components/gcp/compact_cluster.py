"""CompactCluster: the VMs of one multi-node GCP job, physically close, in one zone.

A ``gcp.compute.ResourcePolicy`` with a group placement policy (``collocation=COLLOCATED``,
``vm_count`` = nodes) and ``nodes`` instances that use it, all in one zone.

Rules enforced, and why (cloud.google.com/compute/docs/instances/placement-policies-overview and
docs.cloud.google.com/ai-hypercomputer/docs/placement-policy-and-workload-policy):

- machine series that support compact placement: of the GPU machines in the catalog, A2, A3
  (High, Mega, Ultra, Edge) and G2. N1 + attached GPUs are refused;
- all instances in one zone — a compact policy is regional, but collocation is physical, so the
  zone is one argument, not one per node;
- at least 2 nodes: a one-VM placement policy places nothing;
- ``vm_count`` equals the number of instances created, so the policy applies only to exactly
  this job's VMs (Google advises ``vm_count`` only for compact policies, and only then);
- GPU VMs cannot live-migrate: host maintenance terminates them, and standard VMs restart.

Capacity is standard (on-demand, optionally consuming a specific reservation from
``ReservationPool``) or Spot; Spot VMs cannot consume reservations, so that pair is refused.
The nodes take the secure defaults of ``instance_settings.py``; ``disk_kms_key`` encrypts their
boot disks with your Cloud KMS key (Checkov CKV_GCP_38), Google-managed keys otherwise.

Example::

    from gpufleet.components.gcp.compact_cluster import CompactCluster, CompactClusterArgs

    cluster = CompactCluster(
        "pretrain",
        CompactClusterArgs(
            tags=tags,
            machine_type="a3-highgpu-8g",
            nodes=2,
            zone="us-east4-a",
            network=network.id,
            subnetwork=subnetwork.id,
            source_image="projects/deeplearning-platform-release/global/images/family/"
            "common-cu124-debian-11",
            reservation=pool.reservation_name,
        ),
    )
"""

from __future__ import annotations

from typing import Literal

import pulumi
import pulumi_gcp as gcp
from pydantic import Field, field_validator, model_validator

from gpufleet.components.component_args import ComponentArgs, StrInput
from gpufleet.components.gcp import instance_settings as vm
from gpufleet.components.scaling import Scaling
from gpufleet.components.tagging import RequiredTags
from gpufleet.planner.capabilities import CAPABILITIES, ScalingMode
from gpufleet.planner.gcp_machines import (
    COMPACT_PLACEMENT_NAMES,
    COMPACT_PLACEMENT_SERIES,
    MachineGpus,
    machine_gpus,
)

# What a compact cluster can follow (its capability's, with fixed): GCP takes one resource
# policy per VM, and the placement policy is it, so there is no instance schedule to start and
# stop the nodes by.
SCALING_MODES: frozenset[ScalingMode] = frozenset(
    {"fixed", *CAPABILITIES["gcp:CompactCluster"].follows}
)


class CompactClusterArgs(ComponentArgs):
    tags: RequiredTags
    machine_type: str
    nodes: int = Field(ge=2, le=1500)
    zone: vm.GcpZone
    network: StrInput
    subnetwork: StrInput
    source_image: str = Field(min_length=1)
    provisioning: Literal["STANDARD", "SPOT"] = "STANDARD"
    reservation: StrInput | None = None
    boot_disk_gib: int = Field(default=500, ge=10, le=65_536)
    boot_disk_type: Literal["pd-balanced", "pd-ssd", "hyperdisk-balanced"] = "pd-balanced"
    startup_script: str | None = None
    scopes: list[str] = Field(default_factory=lambda: list(vm.DEFAULT_SCOPES))
    secure_boot: bool = False
    # The Cloud KMS key that encrypts the boot disks (CMEK); None: Google-managed keys.
    disk_kms_key: vm.KmsKey | None = None
    project: str | None = None
    # When the nodes run: all month (fixed), or stopped until a run starts them (on_request).
    scaling: Scaling = Field(default_factory=Scaling)

    @field_validator("machine_type")
    @classmethod
    def _compact_series(cls, value: str) -> str:
        if not COMPACT_PLACEMENT_SERIES.match(value):
            raise ValueError(
                f"{value} cannot use compact placement; GPU series that can: "
                + ", ".join(name.upper() for name in COMPACT_PLACEMENT_NAMES)
            )
        machine_gpus(value)
        return value

    @model_validator(mode="after")
    def _consistent(self) -> CompactClusterArgs:
        if self.scaling.mode not in SCALING_MODES:
            raise ValueError(
                f"scaling {self.scaling.mode} is not for a compact cluster: its nodes run all "
                "month or stop until a run starts them (a VM in a placement policy takes no "
                "instance schedule)"
            )
        if self.provisioning == "SPOT" and self.reservation is not None:
            raise ValueError("Spot VMs cannot consume a reservation; drop one of them")
        self.tags.as_labels()
        return self

    @property
    def region(self) -> str:
        return self.zone.rsplit("-", 1)[0]

    def gpus(self) -> MachineGpus:
        return machine_gpus(self.machine_type)


class CompactCluster(pulumi.ComponentResource):
    resource_policy_self_link: pulumi.Output[str]
    instance_self_links: list[pulumi.Output[str]]
    service_account_email: pulumi.Output[str]

    def __init__(
        self, name: str, args: CompactClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:gcp:CompactCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        labels = args.tags.as_labels()
        spot = args.provisioning == "SPOT"

        policy = gcp.compute.ResourcePolicy(
            f"{name}-placement",
            project=args.project,
            region=args.region,
            group_placement_policy={"collocation": "COLLOCATED", "vm_count": args.nodes},
            opts=child,
        )
        scaling = args.scaling
        account = vm.service_account(name, parent=self, project=args.project)
        instances = [
            gcp.compute.Instance(
                f"{name}-node-{index}",
                project=args.project,
                zone=args.zone,
                machine_type=args.machine_type,
                boot_disk=vm.instance_boot_disk(
                    image=args.source_image,
                    size_gib=args.boot_disk_gib,
                    disk_type=args.boot_disk_type,
                    labels=labels,
                    kms_key=args.disk_kms_key,
                ),
                network_interfaces=[vm.network_interface(args.network, args.subnetwork)],
                resource_policies=policy.self_link,
                # Stopped VMs bill their disks only; a run (or the schedule) starts them, and
                # later `pulumi up` runs leave them as they are.
                desired_status="TERMINATED" if scaling.scales else None,
                scheduling=vm.scheduling(
                    spot=spot, termination_action="STOP", max_run_seconds=None
                ),
                reservation_affinity=None
                if args.reservation is None
                else vm.reservation_affinity(args.reservation),
                shielded_instance_config=vm.shielded(args.secure_boot),
                service_account=vm.account(account.email, args.scopes),
                metadata=vm.METADATA,
                metadata_startup_script=args.startup_script,
                labels={**labels, **scaling.expected_tags()},
                # `gpufleet scale` starts them with a stop time (max_run_duration): later
                # `pulumi up` runs leave a run and its end alone.
                opts=pulumi.ResourceOptions(
                    parent=self,
                    ignore_changes=["desired_status", "scheduling.maxRunDuration"],
                )
                if scaling.scales
                else child,
            )
            for index in range(args.nodes)
        ]

        self.resource_policy_self_link = policy.self_link
        self.instance_self_links = [i.self_link for i in instances]
        self.service_account_email = account.email
        self.register_outputs(
            {
                "resource_policy_self_link": policy.self_link,
                "instance_self_links": self.instance_self_links,
                "service_account_email": account.email,
                "nodes": args.nodes,
                "gpus_per_node": args.gpus().count,
            }
        )

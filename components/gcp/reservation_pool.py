"""ReservationPool: GCP reserved GPU capacity in one zone, for targeted consumers only.

A ``gcp.compute.Reservation`` holds ``count`` VMs of a machine type (with attached GPUs on N1)
in one zone. ``specific_reservation_required`` defaults to true, so only VMs that name the
reservation consume it (``reservation_affinity`` output; ``CompactCluster(reservation=...)``
sets it) — nothing else quietly eats capacity you pay for. The reservation can be shared with
other projects of the organization (``share_with_projects``), and it is protected: ``pulumi
destroy`` stops at it until the protection is removed deliberately. GCP reservations carry no
labels; the consumers do, and the description names the workload and the commitment that pays
for it (``commitment``), for the cost engine.

That commitment is bought outside the stack, unless ``purchase_commitment`` asks the stack to
buy it: a resource-based committed-use discount (``gcp.compute.RegionCommitment``) for exactly
the reservation's GPUs, vCPUs and memory, of the ``commitment`` term, with the reservation
attached (GCP sells GPU commitments only with reservations attached). It is a contract of one
or three years that bills whether used or not and that GCP cannot cancel: it is opt-in,
protected, never renewed on its own, and kept in the account if ever removed from the stack
(``retain_on_delete``); gpufleet never deletes it. Once it ends, GCP deletes the attached
reservation.

Example::

    from gpufleet.components.gcp.reservation_pool import ReservationPool, ReservationPoolArgs

    pool = ReservationPool(
        "chat-serving",
        ReservationPoolArgs(
            tags=tags,
            machine_type="g2-standard-4",
            zone="us-east4-a",
            count=2,
        ),
    )
"""

from __future__ import annotations

import math
import re
from typing import Any

import pulumi
import pulumi_gcp as gcp
from pydantic import Field, field_validator, model_validator

from gpufleet.components.component_args import ComponentArgs
from gpufleet.components.gcp import instance_settings as vm
from gpufleet.components.tagging import RequiredTags, with_commitment
from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.gcp_machines import (
    COMMITMENT_MB_PER_GIB,
    COMMITMENT_MEMORY_STEP_MB,
    COMMITMENT_PLANS,
    COMMITMENT_TYPES,
    MachineGpus,
    commitment_type,
    machine_gpus,
)
from gpufleet.pricing_models import Commitment
from gpufleet.tag_keys import description_with

PROJECT_ID = re.compile(r"[a-z][-a-z0-9]{4,28}[a-z0-9]")


class ReservationPoolArgs(ComponentArgs):
    tags: RequiredTags
    machine_type: str
    gpu: str | None = None
    gpu_count: int | None = None
    zone: vm.GcpZone
    count: int = Field(ge=1, le=10_000)
    specific_reservation_required: bool = True
    share_with_projects: list[str] = Field(default_factory=list)
    project: str | None = None
    # The commitment that pays for the reservation (a committed-use discount of this term):
    # bought outside the stack unless purchase_commitment; its description says so, for the
    # cost engine's forecast.
    commitment: Commitment = "none"
    # Buy that commitment in the stack (a RegionCommitment; see the module's docstring).
    purchase_commitment: bool = False

    @field_validator("share_with_projects")
    @classmethod
    def _projects(cls, value: list[str]) -> list[str]:
        bad = [p for p in value if not PROJECT_ID.fullmatch(p)]
        if bad:
            raise ValueError(f"not GCP project ids: {', '.join(bad)}")
        return value

    @model_validator(mode="after")
    def _pairing(self) -> ReservationPoolArgs:
        self.gpus()
        if self.purchase_commitment:
            self.commitment_resources()
        return self

    def commitment_resources(self) -> list[dict[str, str]]:
        """What the commitment buys: the reservation's GPUs, vCPUs and memory (in MB, in
        GCP's steps); ValueError when no commitment can be bought for it."""
        if self.commitment == "none":
            raise ValueError("purchase_commitment needs the commitment's term: 1y or 3y")
        if commitment_type(self.machine_type) is None:
            raise ValueError(
                f"gpufleet knows no commitment type for {self.machine_type}; it buys "
                f"commitments for {', '.join(s.rstrip('-') for s in COMMITMENT_TYPES)} machines "
                "(planner/gcp_machines.py COMMITMENT_TYPES)"
            )
        shape = load_catalog().shape("gcp", self.machine_type)
        if shape is None:
            raise ValueError(
                f"the catalog does not know {self.machine_type}'s vCPUs and memory, which a "
                "commitment must name"
            )
        gpus = self.gpus()
        step = COMMITMENT_MEMORY_STEP_MB
        memory_mb = math.ceil(shape.memory_gib * COMMITMENT_MB_PER_GIB * self.count / step) * step
        return [
            {"type": "VCPU", "amount": str(math.ceil(shape.vcpus * self.count))},
            {"type": "MEMORY", "amount": str(memory_mb)},
            {
                "type": "ACCELERATOR",
                "accelerator_type": gpus.accelerator_type,
                "amount": str(gpus.count * self.count),
            },
        ]

    def gpus(self) -> MachineGpus:
        return machine_gpus(self.machine_type, self.gpu, self.gpu_count)


class ReservationPool(pulumi.ComponentResource):
    reservation_name: pulumi.Output[str]
    reservation_self_link: pulumi.Output[str]
    reservation_affinity: dict[str, Any]
    commitment_name: pulumi.Output[str] | None  # purchase_commitment: the commitment bought

    def __init__(
        self, name: str, args: ReservationPoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:gcp:ReservationPool", name, None, opts)
        gpus = args.gpus()
        properties = gcp.compute.ReservationSpecificReservationInstancePropertiesArgs(
            machine_type=args.machine_type,
            guest_accelerators=[
                gcp.compute.ReservationSpecificReservationInstancePropertiesGuestAcceleratorArgs(
                    accelerator_type=gpus.accelerator_type, accelerator_count=gpus.count
                )
            ]
            if gpus.attached
            else None,
        )
        # Reservations take no labels: the workload and the commitment that pays for it go into
        # the description, where the cost engine reads them (tag_keys.description_with).
        described = with_commitment(args.tags.as_tags(), args.commitment)
        reservation = gcp.compute.Reservation(
            f"{name}-reservation",
            description=description_with(
                f"gpufleet reservation for {args.tags.workload}", described
            ),
            project=args.project,
            zone=args.zone,
            specific_reservation_required=args.specific_reservation_required,
            specific_reservation=gcp.compute.ReservationSpecificReservationArgs(
                count=args.count, instance_properties=properties
            ),
            share_settings=None
            if not args.share_with_projects
            else {
                "share_type": "SPECIFIC_PROJECTS",
                "project_maps": [
                    {"id": project, "project_id": project} for project in args.share_with_projects
                ],
            },
            opts=pulumi.ResourceOptions(parent=self, protect=True),
        )

        self.commitment_name = None
        if args.purchase_commitment:
            commitment = gcp.compute.RegionCommitment(
                f"{name}-commitment",
                description=description_with(
                    f"gpufleet commitment for {args.tags.workload}", described
                ),
                project=args.project,
                region=args.zone.rsplit("-", 1)[0],
                category="MACHINE",
                type=commitment_type(args.machine_type),
                plan=COMMITMENT_PLANS[args.commitment],
                resources=[
                    gcp.compute.RegionCommitmentResourceArgs(**amount)
                    for amount in args.commitment_resources()
                ],
                auto_renew=False,
                # The reservation's id is its path (projects/P/zones/Z/reservations/R).
                existing_reservations=reservation.id,
                opts=pulumi.ResourceOptions(parent=self, protect=True, retain_on_delete=True),
            )
            self.commitment_name = commitment.name

        self.reservation_name = reservation.name
        self.reservation_self_link = reservation.self_link
        self.reservation_affinity = vm.reservation_affinity(reservation.name)
        outputs: dict[str, Any] = {
            "reservation_name": reservation.name,
            "reservation_self_link": reservation.self_link,
            "reservation_affinity": self.reservation_affinity,
            "reserved_vms": args.count,
            "gpus_per_vm": gpus.count,
        }
        if self.commitment_name is not None:
            outputs["commitment_name"] = self.commitment_name
        self.register_outputs(outputs)

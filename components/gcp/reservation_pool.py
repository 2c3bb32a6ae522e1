"""ReservationPool: GCP reserved GPU capacity in one zone, for targeted consumers only.

A ``gcp.compute.Reservation`` holds ``count`` VMs of a machine type (with attached GPUs on N1)
in one zone. ``specific_reservation_required`` defaults to true, so only VMs that name the
reservation consume it (``reservation_affinity`` output; ``CompactCluster(reservation=...)``
sets it) — nothing else quietly eats capacity you pay for. The reservation can be shared with
other projects of the organization (``share_with_projects``), and it is protected: ``pulumi
destroy`` stops at it until the protection is removed deliberately. GCP reservations carry no
labels; the consumers do, and the description names the workload and the commitment that pays
for it (``commitment``), for the cost engine.

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

import re
from typing import Any

import pulumi
import pulumi_gcp as gcp
from pydantic import Field, field_validator, model_validator

from gpufleet.components.component_args import ComponentArgs
from gpufleet.components.gcp import instance_settings as vm
from gpufleet.components.tagging import RequiredTags, with_commitment
from gpufleet.planner.gcp_machines import MachineGpus, machine_gpus
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
    # The commitment that pays for the reservation, bought outside the stack (Savings Plan,
    # committed use discount, Azure reservation): tagged, so gpufleet cost prices it so.
    commitment: Commitment = "none"

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
        return self

    def gpus(self) -> MachineGpus:
        return machine_gpus(self.machine_type, self.gpu, self.gpu_count)


class ReservationPool(pulumi.ComponentResource):
    reservation_name: pulumi.Output[str]
    reservation_self_link: pulumi.Output[str]
    reservation_affinity: dict[str, Any]

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

        self.reservation_name = reservation.name
        self.reservation_self_link = reservation.self_link
        self.reservation_affinity = vm.reservation_affinity(reservation.name)
        self.register_outputs(
            {
                "reservation_name": reservation.name,
                "reservation_self_link": reservation.self_link,
                "reservation_affinity": self.reservation_affinity,
                "reserved_vms": args.count,
                "gpus_per_vm": gpus.count,
            }
        )

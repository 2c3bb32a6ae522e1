"""CapacityReservationGroup: reserved Azure GPU capacity for always-on work.

An ``azure_native.compute.CapacityReservationGroup`` with one ``CapacityReservation`` per zone
(``capacity_per_zone``, e.g. ``{"1": 2, "2": 1}``) or one regional reservation
(``regional_capacity``) of a GPU size. Capacity reservations bill at the pay-as-you-go rate
whether or not VMs use them — they guarantee the capacity; pair them with reserved-instance
pricing for the discount. VMs and scale sets use the group by naming it
(``capacity_reservation.capacity_reservation_group.id``); Spot VMs cannot. The group and its
reservations are protected from deletion.

Example::

    from gpufleet.components.azure.capacity_reservation_group import (
        CapacityReservationGroup, CapacityReservationGroupArgs)

    serving = CapacityReservationGroup(
        "chat-serving",
        CapacityReservationGroupArgs(
            tags=tags,
            resource_group_name=resource_group.name,
            location="eastus",
            vm_size="Standard_NC24ads_A100_v4",
            capacity_per_zone={"1": 2, "2": 2},
        ),
    )
"""

from __future__ import annotations

from typing import Literal

import pulumi
import pulumi_azure_native as azure
from pydantic import Field, field_validator, model_validator

from gpufleet.components.azure.sizes import gpu_size
from gpufleet.components.component_args import ComponentArgs, StrInput
from gpufleet.components.tagging import RequiredTags, with_commitment
from gpufleet.pricing_models import Commitment


class CapacityReservationGroupArgs(ComponentArgs):
    tags: RequiredTags
    resource_group_name: StrInput
    location: str = Field(min_length=2)
    vm_size: str
    capacity_per_zone: dict[Literal["1", "2", "3"], int] | None = None
    regional_capacity: int | None = Field(default=None, ge=1, le=1000)
    # The commitment that pays for the reservation, bought outside the stack (Savings Plan,
    # committed use discount, Azure reservation): tagged, so gpufleet cost prices it so.
    commitment: Commitment = "none"

    @field_validator("vm_size")
    @classmethod
    def _gpu_size(cls, value: str) -> str:
        gpu_size(value)
        return value

    @field_validator("capacity_per_zone")
    @classmethod
    def _counts(cls, value: dict[str, int] | None) -> dict[str, int] | None:
        if value is not None:
            if not value:
                raise ValueError("needs at least one zone")
            bad = {z: n for z, n in value.items() if not 1 <= n <= 1000}
            if bad:
                raise ValueError(f"counts must be 1-1000, got {bad}")
        return value

    @model_validator(mode="after")
    def _one_shape(self) -> CapacityReservationGroupArgs:
        if (self.capacity_per_zone is None) == (self.regional_capacity is None):
            raise ValueError("give exactly one of capacity_per_zone and regional_capacity")
        return self


class CapacityReservationGroup(pulumi.ComponentResource):
    group_id: pulumi.Output[str]
    group_name: pulumi.Output[str]
    reservation_ids: dict[str, pulumi.Output[str]]

    def __init__(
        self,
        name: str,
        args: CapacityReservationGroupArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__("gpufleet:azure:CapacityReservationGroup", name, None, opts)
        protected = pulumi.ResourceOptions(parent=self, protect=True)
        tags = args.tags.as_tags()
        zones = sorted(args.capacity_per_zone or {})

        group = azure.compute.CapacityReservationGroup(
            f"{name}-group",
            resource_group_name=args.resource_group_name,
            location=args.location,
            zones=zones or None,
            tags=tags,
            opts=protected,
        )
        shares = (
            {zone: args.capacity_per_zone[zone] for zone in zones}
            if args.capacity_per_zone
            else {"regional": args.regional_capacity or 0}
        )
        reservations = {
            zone: azure.compute.CapacityReservation(
                f"{name}-{'regional' if zone == 'regional' else f'zone-{zone}'}",
                resource_group_name=args.resource_group_name,
                location=args.location,
                capacity_reservation_group_name=group.name,
                sku=azure.compute.SkuArgs(name=args.vm_size, capacity=count),
                zones=None if zone == "regional" else [zone],
                tags=with_commitment(tags, args.commitment),
                opts=protected,
            )
            for zone, count in shares.items()
        }

        self.group_id = group.id
        self.group_name = group.name
        self.reservation_ids = {zone: r.id for zone, r in reservations.items()}
        self.register_outputs(
            {
                "group_id": group.id,
                "group_name": group.name,
                "reservation_ids": self.reservation_ids,
                "reserved_vms": sum(shares.values()),
                "gpus_per_vm": gpu_size(args.vm_size).gpu_count,
            }
        )

"""Azure reservations (reserved VM instances), as held commitments.

Read with azure-mgmt-reservations (``reservation.list_all``, every page; the SDK's pager):
reservations of virtual machines that succeeded, with their VM size, region, quantity, term
and expiry. A reservation scoped to single subscriptions pays only there: one that does not
list the stack's subscription is left out. Instance size flexibility is not assumed: a
reservation covers its own VM size. Endpoint and credentials are ``runs.azure_access``'s.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from azure.identity import DefaultAzureCredential
from azure.mgmt.reservations import AzureReservationAPI

from gpufleet.capacity.commitments import HeldCommitment
from gpufleet.pricing_models import Commitment
from gpufleet.runs.azure_access import azure_errors, client_options

_TERMS: dict[str, Commitment] = {"P1Y": "1y", "P3Y": "3y"}


def azure_commitments(subscription: str) -> list[HeldCommitment]:
    """The reservations of VMs that pay for ``subscription``'s; CloudError when they cannot
    be read."""
    client = AzureReservationAPI(DefaultAzureCredential(), **client_options())
    with azure_errors("Microsoft.Capacity/reservations/read", "the tenant's reservations"):
        listed = list(client.reservation.list_all())
    return [held for r in listed if (held := _reservation(r, subscription)) is not None]


def _reservation(reservation: Any, subscription: str) -> HeldCommitment | None:
    props = reservation.properties
    if props is None or reservation.sku is None or not reservation.sku.name:
        return None
    if props.reserved_resource_type != "VirtualMachines" or props.provisioning_state not in (
        "Succeeded",
        None,
    ):
        return None
    term = _TERMS.get(str(props.term or ""))
    if term is None or not props.quantity or props.quantity <= 0:
        return None
    if props.applied_scope_type == "Single":
        scopes = [str(s).lower() for s in props.applied_scopes or []]
        if not any(s.startswith(f"/subscriptions/{subscription.lower()}") for s in scopes):
            return None
    return HeldCommitment(
        cloud="azure",
        id=str(reservation.name or reservation.id or ""),
        term=term,
        kind="instances",
        region=(reservation.location or "").replace(" ", "").lower() or None,
        instance_type=str(reservation.sku.name),
        count=float(props.quantity),
        start=_date(props.benefit_start_time or props.effective_date_time),
        end=_date(props.expiry_date_time or props.expiry_date),
        source="azure reservation",
    )


def _date(value: object) -> str | None:
    if isinstance(value, datetime):
        return value.date().isoformat()
    if value is not None and len(str(value)) >= 10:
        return str(value)[:10]
    return None

"""Rule ``reservation-end-date``: capacity reservations end (outside prod).

An AWS capacity reservation needs ``endDateType: limited`` with an ``endDate``; a GCP
reservation ``deleteAtTime`` or ``deleteAfterDuration``. Azure capacity reservations cannot
end by themselves, so outside prod they fail this rule; Capacity Blocks always end and pass.
"""

from __future__ import annotations

from gpufleet import resource_types as types
from gpufleet.capacity.property_values import is_unknown
from gpufleet.policies.policy_builders import Findings, ResourceView, Settings, resource_policy
from gpufleet.policy_tags import COST


def check_reservation_end(resource: ResourceView, settings: Settings) -> Findings:
    findings = Findings()
    props = resource.props
    if resource.type == types.AWS_CAPACITY_RESERVATION:
        end_type = props.get("endDateType")
        if is_unknown(end_type) or is_unknown(props.get("endDate")):
            findings.unknown = (["endDate"], props.get("endDate") or end_type)
        elif end_type != "limited" or not props.get("endDate"):
            findings.violate(
                "capacity reservation without an end date (endDateType: limited, endDate) "
                "bills until someone cancels it"
            )
    elif resource.type == types.GCP_RESERVATION:
        if props.get("deleteAtTime") is None and props.get("deleteAfterDuration") is None:
            findings.violate(
                "reservation without deleteAtTime or deleteAfterDuration bills until deleted"
            )
    elif resource.type == types.AZURE_CAPACITY_RESERVATION:
        findings.violate(
            "Azure capacity reservations have no end date; reserve capacity in prod only"
        )
    return findings


POLICY = resource_policy(
    "reservation-end-date",
    "Capacity reservations have an end date.",
    check_reservation_end,
    config={},
    display_name="Capacity reservations end",
    tags=[COST],
    applies_to={
        types.AWS_CAPACITY_RESERVATION,
        types.GCP_RESERVATION,
        types.AZURE_CAPACITY_RESERVATION,
    },
)

"""Rule ``reservation-end-date``: capacity reservations end (outside prod).

An AWS capacity reservation needs ``endDateType: limited`` with an ``endDate``; a GCP
reservation ``deleteAtTime`` or ``deleteAfterDuration``. Azure capacity reservations cannot
end by themselves, so outside prod they fail this rule; Capacity Blocks always end and pass.

A generated stack's reservation of a workload whose plan commits to a term (a part priced
``reserved_1y`` / ``reserved_3y`` in ``gpufleet:workloads``, the reviewed stack config) is
meant to last that term, so it passes: the spec allowed the commitment in this environment.
"""

from __future__ import annotations

from gpufleet import resource_types as types
from gpufleet.capacity.property_values import is_unknown
from gpufleet.capacity.taggable import tag_entries, tag_property
from gpufleet.policies.policy_builders import Findings, ResourceView, Settings, resource_policy
from gpufleet.policies.stack_limits import stack_limits
from gpufleet.policy_tags import COST
from gpufleet.tag_keys import WORKLOAD, tags_in_description


def check_reservation_end(resource: ResourceView, settings: Settings) -> Findings:
    findings = Findings()
    props = resource.props
    if _workload(resource) in stack_limits().committed:
        return findings
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


def _workload(resource: ResourceView) -> str | None:
    """The workload a reservation is for: its tag, or on a type that takes none (a GCP
    reservation) the word gpufleet writes into its description."""
    prop = tag_property(resource.type)
    if prop is not None:
        entries, _ = tag_entries(prop, resource.props, resource.provider_props)
        value = entries.get(prop.key_for(WORKLOAD))
        return value if isinstance(value, str) else None
    description = resource.props.get("description")
    if isinstance(description, str) and not is_unknown(description):
        return tags_in_description(description).get(WORKLOAD)
    return None


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

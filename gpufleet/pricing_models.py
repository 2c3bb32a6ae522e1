"""How GPU capacity is paid for: one vocabulary for the planner, the stack config, the policies
and every output, and the month prices are quoted for.

``Pricing`` is what the planner chooses for a workload's capacity and what a stack config's
parts say: spot, on-demand, or a 1- or 3-year commitment (reserved instances, committed-use
discounts, Azure reservations). ``Commitment`` is the longest term an environment allows.

``Market`` is how a resource in a stack is paid for, as the policies read it from the resource
itself: it says spot or on-demand; a capacity reservation (``reserved``) holds capacity without
saying which commitment, if any, pays for it; a group may mix spot and on-demand (``mixed``);
a VM that runs inside a reservation (``in_reservation``) is paid for by that reservation.
"""

from __future__ import annotations

from typing import Literal, get_args

Pricing = Literal["spot", "on_demand", "reserved_1y", "reserved_3y"]
PRICING_ORDER: tuple[Pricing, ...] = get_args(Pricing)

Commitment = Literal["none", "1y", "3y"]
# The commitment terms an environment's ``max_commitment`` allows.
TERMS_UP_TO: dict[Commitment, tuple[Pricing, ...]] = {
    "none": (),
    "1y": ("reserved_1y",),
    "3y": ("reserved_1y", "reserved_3y"),
}
COMMITMENT_TERMS: tuple[Pricing, ...] = TERMS_UP_TO["3y"]
# Each commitment (a term) and the pricing it buys, both ways.
PRICING_OF_TERM: dict[Commitment, Pricing] = {
    term: allowed[-1] for term, allowed in TERMS_UP_TO.items() if allowed
}
TERM_OF_PRICING: dict[Pricing, Commitment] = {p: t for t, p in PRICING_OF_TERM.items()}

Market = Literal["spot", "on_demand", "reserved", "mixed", "in_reservation"]
# What Azure ML calls its spot VMs.
LOW_PRIORITY = "low-priority"

# 8,760 hours a year / 12: the convention every cloud's price calculator uses.
HOURS_PER_MONTH = 730


def is_commitment(pricing: Pricing) -> bool:
    return pricing in COMMITMENT_TERMS

"""The pricing vocabulary: plan pricing models, the terms each commitment limit allows."""

from __future__ import annotations

from gpufleet.pricing_models import (
    COMMITMENT_TERMS,
    PRICING_ORDER,
    TERMS_UP_TO,
    is_commitment,
)


def test_commitment_terms_grow_with_the_limit_and_are_the_reserved_pricings() -> None:
    assert PRICING_ORDER == ("spot", "on_demand", "reserved_1y", "reserved_3y")
    assert TERMS_UP_TO["none"] == () and TERMS_UP_TO["1y"] == ("reserved_1y",)
    assert COMMITMENT_TERMS == TERMS_UP_TO["3y"] == ("reserved_1y", "reserved_3y")
    assert [p for p in PRICING_ORDER if is_commitment(p)] == list(COMMITMENT_TERMS)

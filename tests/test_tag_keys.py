"""Tag keys and their GCP label form."""

from __future__ import annotations

import pytest

from gpufleet.tag_keys import gcp_label_key, gcp_label_value


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("Cost Center", "cost_center", "cost_center"),
        ("2fa", "k2fa", "2fa"),
        ("ÜBER/team", "k_ber_team", "_ber_team"),
        ("x" * 70, "x" * 63, "x" * 63),
    ],
)
def test_label_normalization(text: str, key: str, value: str) -> None:
    assert gcp_label_key(text) == key
    assert gcp_label_value(text) == value
    assert gcp_label_key(gcp_label_key(text)) == gcp_label_key(text)  # idempotent


def test_expected_minutes_are_ascii_whole_numbers() -> None:
    from gpufleet.tag_keys import expected_minutes

    assert expected_minutes("9000") == 9000
    # Unicode digits pass str.isdigit() but are not numbers int() reads; signs, decimals, too
    # many digits and non-strings are not minutes either.
    for bad in ("²", "٣٠", "-5", "1.5", "1234567", "", None, 60):
        assert expected_minutes(bad) is None, bad

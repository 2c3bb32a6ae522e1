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

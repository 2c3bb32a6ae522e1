"""Azure resource names derived from component names: valid and stable."""

from __future__ import annotations

import re

import pytest

from gpufleet.components.azure.names import (
    compute_name,
    computer_name_prefix,
    key_vault_name,
    storage_account_name,
)


@pytest.mark.parametrize("name", ["nightly-embeddings", "x", "123-serve", "A" * 80])
def test_azure_names_are_valid_and_stable(name: str) -> None:
    assert re.fullmatch(r"[a-z0-9]{3,24}", storage_account_name(name))
    assert re.fullmatch(r"[a-z][a-z0-9-]{1,22}[a-z0-9]", key_vault_name(name))
    assert re.fullmatch(r"[a-z][a-z0-9-]{1,15}", compute_name(name))
    # Linux computer names: letters, digits and '-', not ending in '-'; at most 9 for a prefix.
    assert re.fullmatch(r"[a-z0-9]([a-z0-9-]{0,7}[a-z0-9])?", computer_name_prefix(name))
    assert storage_account_name(name) == storage_account_name(name)  # derived, not random

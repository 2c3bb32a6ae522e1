"""The pack as the dev environment configures it, for the policy tests."""

from __future__ import annotations

import json

import pytest

from gpufleet.policies.pack import CONFIG_DIR
from gpufleet.policies.testing import PolicyHarness


@pytest.fixture(scope="module")
def dev() -> PolicyHarness:
    return PolicyHarness(config=json.loads((CONFIG_DIR / "dev.json").read_text()))

"""The bad program's check report, made once for every checks test that reads it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.checks.check_runs import bad


@pytest.fixture(scope="package")
def bad_json() -> dict[str, Any]:
    result = bad("--format", "json")
    assert result.returncode == 1, result.stderr
    return json.loads(result.stdout)

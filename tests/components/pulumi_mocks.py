"""Test shorthand over the offline engine's capture (``gpufleet.engine.capture``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpufleet.engine.capture import Capture, Registration, capture_program, resolve
from gpufleet.engine.mock_outputs import (
    ACCOUNT,
    AZURE_SUBSCRIPTION,
    AZURE_TENANT,
    GCP_PROJECT,
    REGION,
)

__all__ = [
    "ACCOUNT",
    "AZURE_SUBSCRIPTION",
    "AZURE_TENANT",
    "GCP_PROJECT",
    "REGION",
    "Capture",
    "Registration",
    "capture",
    "resolve",
]


def capture(
    program: Callable[[], Any], *, preview: bool = False, stack: str = "dev"
) -> tuple[Capture, Any]:
    """Run ``program`` under mocks; return what it registered and what it returned."""
    result = capture_program(program, preview=preview, stack=stack)
    return result.capture, result.value

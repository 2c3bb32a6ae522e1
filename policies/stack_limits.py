"""The environment's limits as ``gpufleet generate`` writes them into the stack config.

A stack generated from a spec carries its environment's limits under ``gpufleet:limits``
(``stacks/stack_config.py``, ``Limits``): the monthly budget and the allowed GPUs among them.
Rules fall back to these where the policy config leaves a limit unset, so a spec's budget
reaches the ``gpu-budget`` policy for every environment, whatever it is called, with the
Pulumi CLI as with ``gpufleet check``.

The engine hands a pack the stack's config twice: in the ``ConfigureStack`` request and as
``PULUMI_CONFIG`` in the pack process's environment (the SDK loads that into the runtime
config). ``record`` keeps the first (the pack's servicer calls it); without it the second is
read. Values are the engine's config strings: objects as JSON text. No pydantic here: the pack
starts without it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi

LIMITS_KEY = "gpufleet:limits"

_recorded: dict[str, str] = {}


@dataclass(frozen=True)
class StackLimits:
    monthly_budget_usd: float | None = None
    allowed_gpus: tuple[str, ...] | None = None


def record(config: Mapping[str, str]) -> None:
    """Remember the stack config of a ``ConfigureStack`` request (empty: none was sent)."""
    _recorded.clear()
    _recorded.update(config)


def stack_limits() -> StackLimits:
    """The limits in this stack's config; empty when it has none (not a gpufleet stack) or
    they cannot be read."""
    text = _recorded.get(LIMITS_KEY) if _recorded else _runtime_config(LIMITS_KEY)
    if not text:
        return StackLimits()
    try:
        limits: Any = json.loads(text)
    except ValueError:
        return StackLimits()
    if not isinstance(limits, dict):
        return StackLimits()
    budget = limits.get("monthlyBudgetUsd")
    allowed = limits.get("allowedGpus")
    return StackLimits(
        monthly_budget_usd=float(budget)
        if isinstance(budget, int | float) and not isinstance(budget, bool)
        else None,
        allowed_gpus=tuple(str(g) for g in allowed) if isinstance(allowed, list) else None,
    )


def _runtime_config(key: str) -> str | None:
    namespace, _, name = key.partition(":")
    return pulumi.Config(namespace).get(name)

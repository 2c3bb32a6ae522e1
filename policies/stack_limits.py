"""The environment's limits as ``gpufleet generate`` writes them into the stack config.

A stack generated from a spec carries its environment's limits under ``gpufleet:limits``
(``stacks/stack_config.py``, ``Limits``; its keys are named in ``stacks/config_keys.py``): the
monthly budget and the allowed GPUs among them; when the spec sets its own, the commitment
discounts the plan priced with (``gpufleet:commitmentDiscounts``); and how the plan buys each
workload's parts (``gpufleet:workloads``): which it put off spot or on a commitment. From the
user's namespace, the commitments the account holds (``site:commitments``): only they price a
reservation at a committed rate.
Rules fall back to these where the policy config leaves a limit unset, so a spec's budget
reaches the ``gpu-budget`` policy for every environment, whatever it is called, with the
Pulumi CLI as with ``gpufleet check``.

The engine hands a pack the stack's config twice: in the ``ConfigureStack`` request and as
``PULUMI_CONFIG`` in the pack process's environment (the SDK loads that into the runtime
config). The pack's servicer reads the first into ``StackLimits`` once and makes them current
for each call it serves (``current_limits``); without it the second is read. No pydantic here:
the pack starts without it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pulumi

from gpufleet.capacity.commitments import HeldCommitment, parse_commitments
from gpufleet.capacity.zone_names import NO_ZONE_NAMES, ZoneNames, site_zone_names
from gpufleet.pricing_models import COMMITMENT_TERMS
from gpufleet.stacks import config_keys


@dataclass(frozen=True)
class StackLimits:
    monthly_budget_usd: float | None = None
    allowed_gpus: tuple[str, ...] | None = None
    # The spec's own commitment discounts (cloud -> term -> fraction), when it set them: the
    # cost engine prices reserved capacity with the plan's discounts.
    commitment_discounts: dict[str, dict[str, float]] | None = None
    # Workloads whose plan puts a part off spot (``gpufleet:workloads``: on-demand, reserved),
    # because the spec says they cannot be interrupted or spot has no offer: the plan decided,
    # within the environment's limits (``allowOnDemand``).
    planned_off_spot: frozenset[str] = frozenset()
    # Workloads whose plan commits to reserved capacity (a part priced reserved_1y or _3y):
    # their reservations are meant to last the term, not to end.
    committed: frozenset[str] = frozenset()
    # Each workload's monthly cost in the plan the stack was generated from (its
    # ``monthlyUsd`` in ``gpufleet:workloads``): what the stack is held to by ``plan-drift``
    # and shown beside the cost.
    planned_monthly_usd: Mapping[str, float] = field(default_factory=dict)
    # Every workload ``gpufleet:workloads`` names, with a plan figure or not.
    planned_workloads: frozenset[str] = frozenset()
    # The commitments the account holds (``site:commitments``); entries that are not one are
    # left out, so they price nothing at a committed rate (``gpufleet cost`` names them).
    commitments: tuple[HeldCommitment, ...] = ()
    # The zones of the subnets the site settings name (``site:aws``): where a group in one
    # subnet runs, so which zone's spot price it pays.
    zones: ZoneNames = NO_ZONE_NAMES


_current: ContextVar[StackLimits | None] = ContextVar("gpufleet_stack_limits", default=None)


def limits_in(config: Mapping[str, str]) -> StackLimits | None:
    """The limits in an engine config map, None when it has neither ``gpufleet:limits`` nor
    ``gpufleet:commitmentDiscounts``."""
    text = config.get(config_keys.LIMITS_KEY) or ""
    discounts = config.get(config_keys.COMMITMENT_DISCOUNTS_KEY) or ""
    workloads = config.get(config_keys.WORKLOADS_KEY) or ""
    held = config.get(config_keys.COMMITMENTS_KEY) or ""
    site_aws = config.get(config_keys.AWS_SITE_KEY) or ""
    if not (text or discounts or workloads or held or site_aws):
        return None
    return _parse(text, discounts, workloads, held, site_aws)


@contextmanager
def current_limits(limits: StackLimits | None) -> Iterator[None]:
    """Make ``limits`` the stack's for the calls inside (None: read the runtime config)."""
    token = _current.set(limits)
    try:
        yield
    finally:
        _current.reset(token)


def stack_limits() -> StackLimits:
    """The limits of the stack being checked; empty when it has none (not a gpufleet stack) or
    they cannot be read."""
    limits = _current.get()
    if limits is not None:
        return limits
    config = pulumi.Config(config_keys.GPUFLEET)
    text = config.get(config_keys.LIMITS)
    discounts = config.get(config_keys.COMMITMENT_DISCOUNTS) or ""
    workloads = config.get(config_keys.WORKLOADS) or ""
    site = pulumi.Config(config_keys.SITE)
    held = site.get(config_keys.COMMITMENTS) or ""
    site_aws = site.get(config_keys.AWS_SITE) or ""
    return _parse(text or "", discounts, workloads, held, site_aws)


@cache
def _parse(
    text: str,
    discounts_text: str,
    workloads_text: str = "",
    held_text: str = "",
    site_aws_text: str = "",
) -> StackLimits:
    zones = site_zone_names(config_json(site_aws_text))
    discounts = _discounts(discounts_text)
    held = tuple(parse_commitments(config_json(held_text))[0])
    workloads = _workloads(workloads_text)
    off_spot = frozenset(
        name
        for name, w in workloads.items()
        if any(p.get(config_keys.PART_PRICING) != "spot" for p in _parts(w))
    )
    committed = frozenset(
        name
        for name, w in workloads.items()
        if any(p.get(config_keys.PART_PRICING) in COMMITMENT_TERMS for p in _parts(w))
    )
    planned = {
        name: float(monthly)
        for name, w in workloads.items()
        if isinstance(monthly := w.get(config_keys.PLANNED_MONTHLY_USD), int | float)
        and not isinstance(monthly, bool)
        and math.isfinite(monthly)
        and monthly >= 0
    }
    limits = config_json(text)
    if not isinstance(limits, dict):
        return StackLimits(
            commitment_discounts=discounts,
            planned_off_spot=off_spot,
            committed=committed,
            planned_monthly_usd=planned,
            planned_workloads=frozenset(workloads),
            commitments=held,
            zones=zones,
        )
    budget = limits.get(config_keys.MONTHLY_BUDGET_USD)
    allowed = limits.get(config_keys.ALLOWED_GPUS)
    return StackLimits(
        monthly_budget_usd=_positive(budget),
        allowed_gpus=tuple(str(g) for g in allowed) if isinstance(allowed, list) else None,
        commitment_discounts=discounts,
        planned_off_spot=off_spot,
        committed=committed,
        planned_monthly_usd=planned,
        planned_workloads=frozenset(workloads),
        commitments=held,
        zones=zones,
    )


def _workloads(text: str) -> dict[str, dict[str, Any]]:
    """``gpufleet:workloads`` by name; empty when it is not there or not that shape."""
    workloads = config_json(text)
    if not isinstance(workloads, list):
        return {}
    return {
        w["name"]: w for w in workloads if isinstance(w, dict) and isinstance(w.get("name"), str)
    }


def _parts(workload: dict[str, Any]) -> list[dict[str, Any]]:
    parts = workload.get("parts")
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def _discounts(text: str) -> dict[str, dict[str, float]] | None:
    """``gpufleet:commitmentDiscounts``: cloud -> term -> fraction; None when absent or not
    that shape (then the defaults apply, as for a hand-written stack)."""
    found = config_json(text)
    if not isinstance(found, dict):
        return None
    return {
        str(cloud): {
            str(term): float(value)
            for term, value in terms.items()
            if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 1
        }
        for cloud, terms in found.items()
        if isinstance(terms, dict)
    }


def _positive(value: Any) -> float | None:
    """A budget that can be one: a finite number above zero."""
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < math.inf:
        return float(value)
    return None


def config_json(text: str) -> Any:
    """A ``gpufleet:`` config value's JSON text parsed; None when it is not JSON (a hand-edited
    config: the defaults apply)."""
    try:
        return json.loads(text) if text else None
    except (ValueError, RecursionError):
        return None

"""The tags gpufleet puts on every resource and the policies require, and their GCP label form.

Every GPU dollar needs an owner: ``COST_KEYS`` (project, owner, cost-center, environment) are
what the ``required-tags`` policy asks of every taggable resource, whoever wrote it.
gpufleet's own resources carry more: the workload they serve, ``managed-by: gpufleet`` and the
workload's kind; all of ``GPUFLEET_KEYS`` are set by gpufleet from the spec, and ``commitment``
on reserved capacity, so a spec's own tags may not use them (in any case: clouds treat tag keys
case-insensitively or not at all). The cost engine groups resources by ``workload`` and prices
reserved capacity by its ``commitment``, on anyone's resources (``COSTING_KEYS``).

GCP calls them labels and allows only lowercase letters, digits, ``_`` and ``-``, at most 63
characters, keys starting with a letter (cloud.google.com/compute/docs/labeling-resources).
The mapping is deterministic: lowercase, any other character becomes ``_``, a key not
starting with a letter gets a ``k`` in front, then cut to 63. This module imports nothing
heavy: the policy pack reads it too.
"""

from __future__ import annotations

import re

PROJECT = "project"
OWNER = "owner"
COST_CENTER = "cost-center"
ENVIRONMENT = "environment"
WORKLOAD = "workload"
MANAGED_BY = "managed-by"
WORKLOAD_KIND = "workload-kind"

# On reserved capacity: the commitment that pays for it, bought outside the stack ("1y" or
# "3y", ``pricing_models.Commitment``); the cost engine prices the reservation at that rate.
COMMITMENT = "commitment"
# On capacity that scales (autoscaled bursts, groups at zero until a run asks): the expected use
# of its capacity above its minimum, in whole minutes a month (GCP label values take no "."),
# as the plan priced it; the cost engine's expected figure follows it.
EXPECTED_MINUTES = "expected-minutes"
# Beside it, on capacity that keeps its nodes for a while after each run (an Azure ML cluster's
# idle time-out): the runs a month the plan expects, each adding that while.
EXPECTED_RUNS = "expected-runs"

# On a group a run sizes (``gpufleet scale``): what it has run this calendar month at full size,
# its last run, and the reason given for a run over the plan (``runs/usage_ledger.py``).
RUN_USED = "gpufleet-used"
RUN_LAST = "gpufleet-last-run"
RUN_OVER_PLAN = "gpufleet-over-plan"
RUN_KEYS: tuple[str, ...] = (RUN_USED, RUN_LAST, RUN_OVER_PLAN)

# On instances that run several replicas (or batch workers) each: slots x GPUs each, e.g.
# ``8x1`` (``components/replica_slots.py``); absent, one replica an instance on all its GPUs.
REPLICA_SLOTS = "replica-slots"

COST_KEYS: tuple[str, ...] = (PROJECT, OWNER, COST_CENTER, ENVIRONMENT)
GPUFLEET_KEYS: tuple[str, ...] = (*COST_KEYS, WORKLOAD, MANAGED_BY, WORKLOAD_KIND, REPLICA_SLOTS)
MANAGED_BY_GPUFLEET = "gpufleet"
# What the cost engine reads from a resource's tags (or, where a type takes none, such as a GCP
# reservation, from ``key=value`` words in its description: ``description_with``).
COSTING_KEYS: tuple[str, ...] = (WORKLOAD, COMMITMENT, EXPECTED_MINUTES, EXPECTED_RUNS)
_WHOLE_NUMBER = re.compile(r"[0-9]{1,6}")

_LABEL_INVALID = re.compile(r"[^a-z0-9_-]")
LABEL_MAX = 63


def set_by_gpufleet(key: str) -> bool:
    """Whether gpufleet sets this tag key itself (compared without case)."""
    return key.lower() in (*GPUFLEET_KEYS, *COSTING_KEYS, *RUN_KEYS)


_DESCRIBED = re.compile(r"(?:^|\s)(" + "|".join(COSTING_KEYS) + r")=(\S+)")


def description_with(text: str, tags: dict[str, str]) -> str:
    """``text`` followed by the costing tags among ``tags`` as ``key=value`` words: how a
    resource that takes no tags carries them."""
    words = [f"{key}={tags[key]}" for key in COSTING_KEYS if key in tags]
    return " ".join([text, *words]) if words else text


def tags_in_description(text: str) -> dict[str, str]:
    """The costing tags ``description_with`` wrote into a description."""
    return {key: value for key, value in _DESCRIBED.findall(text)}


def gcp_label_value(text: str) -> str:
    return _LABEL_INVALID.sub("_", text.lower())[:LABEL_MAX]


def gcp_label_key(text: str) -> str:
    key = _LABEL_INVALID.sub("_", text.lower())
    if not key[:1].isalpha():
        key = f"k{key}"
    return key[:LABEL_MAX]


def expected_runs(value: object) -> int | None:
    """The runs an ``expected-runs`` tag gives: whole, as ``expected_minutes``."""
    return expected_minutes(value)


def expected_minutes(value: object) -> int | None:
    """The minutes an ``expected-minutes`` tag (or description word) gives: up to six ASCII
    digits (the cost engine caps the hours at the month); None for anything else."""
    if not isinstance(value, str) or not _WHOLE_NUMBER.fullmatch(value):
        return None
    return int(value)

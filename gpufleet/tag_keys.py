"""The tags gpufleet puts on every resource and the policies require, and their GCP label form.

Every GPU dollar needs an owner: ``COST_KEYS`` (project, owner, cost-center, environment) are
what the ``required-tags`` policy asks of every taggable resource, whoever wrote it.
gpufleet's own resources carry more: the workload they serve, ``managed-by: gpufleet`` and the
workload's kind; all of ``GPUFLEET_KEYS`` are set by gpufleet from the spec, so a spec's own
tags may not use them (in any case: clouds treat tag keys case-insensitively or not at all).

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

COST_KEYS: tuple[str, ...] = (PROJECT, OWNER, COST_CENTER, ENVIRONMENT)
GPUFLEET_KEYS: tuple[str, ...] = (*COST_KEYS, WORKLOAD, MANAGED_BY, WORKLOAD_KIND)
MANAGED_BY_GPUFLEET = "gpufleet"

_LABEL_INVALID = re.compile(r"[^a-z0-9_-]")
LABEL_MAX = 63


def set_by_gpufleet(key: str) -> bool:
    """Whether gpufleet sets this tag key itself (compared without case)."""
    return key.lower() in GPUFLEET_KEYS


def gcp_label_value(text: str) -> str:
    return _LABEL_INVALID.sub("_", text.lower())[:LABEL_MAX]


def gcp_label_key(text: str) -> str:
    key = _LABEL_INVALID.sub("_", text.lower())
    if not key[:1].isalpha():
        key = f"k{key}"
    return key[:LABEL_MAX]

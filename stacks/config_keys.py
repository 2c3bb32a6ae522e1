"""The stack config keys gpufleet defines, named once: its two namespaces, and what the policy
pack and the cost engine read back from a generated stack (``policies/stack_limits.py``,
``capacity/stack_cost.py``): limits, the plan's monthly costs, commitment discounts.

``gpufleet:`` is what ``gpufleet generate`` writes and owns; ``site:`` is the user's. The
pydantic models of ``stack_config`` use these names, and the pack reads them without pydantic,
so this module imports nothing.
"""

from __future__ import annotations

GPUFLEET = "gpufleet"
SITE = "site"
# Every key gpufleet owns starts so: a stale one (no longer written) is dropped on regeneration.
GPUFLEET_PREFIX = f"{GPUFLEET}:"

LIMITS = "limits"
LIMITS_KEY = f"{GPUFLEET}:{LIMITS}"
WORKLOADS = "workloads"
WORKLOADS_KEY = f"{GPUFLEET}:{WORKLOADS}"
# The plan's monthly cost of a workload, in ``gpufleet:workloads`` (``gpufleet cost`` shows it).
PLANNED_MONTHLY_USD = "monthlyUsd"
# The spec's own commitment discounts, when it sets them (``gpufleet:commitmentDiscounts``).
COMMITMENT_DISCOUNTS = "commitmentDiscounts"
COMMITMENT_DISCOUNTS_KEY = f"{GPUFLEET}:{COMMITMENT_DISCOUNTS}"
# The commitments the account holds, as ``gpufleet commitments --record`` writes them
# (``site:commitments``): the user's, kept by regeneration; the committed rate needs one.
COMMITMENTS = "commitments"
COMMITMENTS_KEY = f"{SITE}:{COMMITMENTS}"
# The user's AWS site settings (``site:aws``): the cost engine reads each subnet's zone from
# them (``capacity.zone_names``).
AWS_SITE = "aws"
AWS_SITE_KEY = f"{SITE}:{AWS_SITE}"
# How a part of a workload is bought (``gpufleet:workloads[].parts[].pricing``).
PART_PRICING = "pricing"
# Fields of ``gpufleet:limits`` the policies read.
MONTHLY_BUDGET_USD = "monthlyBudgetUsd"
ALLOWED_GPUS = "allowedGpus"

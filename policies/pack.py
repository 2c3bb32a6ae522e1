"""gpufleet's CrossGuard policy pack: the policy list and the ``PolicyPack`` that serves it.

``all_policies()`` is importable without starting anything; ``serve()`` builds the
``PolicyPack``, which starts the Analyzer gRPC server and blocks (``__main__.py`` calls it when
Pulumi, or ``gpufleet check``, runs the pack). Default enforcement is mandatory; each
environment's ``config/<env>.json`` sets levels and limits per policy.
"""

from __future__ import annotations

from pathlib import Path

from pulumi_policy import EnforcementLevel, Policy, PolicyPack

from gpufleet.policies import cost_hygiene, gpu_budget, gpu_limits, required_tags, security

PACK_NAME = "gpufleet"
PACK_DIR = Path(__file__).parent
CONFIG_DIR = PACK_DIR / "config"


def all_policies() -> list[Policy]:
    return [
        required_tags.policy(),
        *gpu_limits.policies(),
        gpu_budget.policy(),
        *cost_hygiene.policies(),
        *security.policies(),
    ]


def serve() -> None:
    PolicyPack(
        name=PACK_NAME,
        policies=all_policies(),
        enforcement_level=EnforcementLevel.MANDATORY,
        description="GPU capacity that is tagged, right-sized, within budget and private.",
    )

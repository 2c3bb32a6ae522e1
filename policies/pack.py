"""gpufleet's CrossGuard policy pack: the policy list and the ``PolicyPack`` that serves it.

``all_policies()`` is importable without starting anything; ``serve()`` starts the Analyzer gRPC
server and blocks (``__main__.py`` calls it when Pulumi, or ``gpufleet check``, runs the pack).
It serves what ``pulumi_policy.PolicyPack`` would, but with ``PackAnalyzer`` (the SDK's servicer
reading each request once rather than once per policy, ``analyzer_servicer``) on
``UnaryServer`` (one loop on grpcio's core rather than a thread pool, ``unary_server``).
Default enforcement is mandatory; each environment's ``config/<env>.json`` sets levels and
limits per policy.
"""

from __future__ import annotations

from pathlib import Path

from pulumi_policy import EnforcementLevel, Policy

from gpufleet.policies import cost_hygiene, gpu_budget, gpu_limits, required_tags, security
from gpufleet.policies.analyzer_servicer import PackAnalyzer, serve_analyzer

PACK_NAME = "gpufleet"
DESCRIPTION = "GPU capacity that is tagged, right-sized, within budget and private."
# PulumiPolicy.yaml's version is what the engine reports; the SDK's packs answer this one.
SDK_VERSION = "0.0.1"
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


def analyzer() -> PackAnalyzer:
    return PackAnalyzer(
        PACK_NAME,
        SDK_VERSION,
        all_policies(),
        EnforcementLevel.MANDATORY,
        description=DESCRIPTION,
    )


def serve() -> None:
    serve_analyzer(analyzer())

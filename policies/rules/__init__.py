"""The pack's rules: one module per policy, named after it (``gpu-budget`` -> ``gpu_budget``),
each defining ``POLICY``. ``all_policies`` collects every module here, so a new rule is a new
module (plus its test and its row in docs/policies.md), with no edit elsewhere.

The pack lists its policies by name, the order in which the Pulumi engine itself sorts a pack's
policies (``GetAnalyzerInfo``), so ``gpufleet check`` reports match the CLI's.
"""

from __future__ import annotations

import importlib
import pkgutil

from pulumi_policy import Policy


def rule_modules() -> list[str]:
    """The rule modules' names, sorted."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.ispkg)


def all_policies() -> list[Policy]:
    policies: list[Policy] = []
    for name in rule_modules():
        module = importlib.import_module(f"{__name__}.{name}")
        policy = getattr(module, "POLICY", None)
        if not isinstance(policy, Policy):
            raise TypeError(f"{module.__name__} defines no POLICY (a pulumi_policy Policy)")
        policies.append(policy)
    return sorted(policies, key=lambda p: p.name)

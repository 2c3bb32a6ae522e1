"""What a policy is about, as its tags say (``Policy.tags``, served with the pack): a policy
tagged ``security`` is a security rule — it has a severity, and code scanning ranks its results
by the security severity SARIF derives from it — and one tagged ``cost`` keeps GPU spending
in check. Code scanning filters alerts by these tags."""

from __future__ import annotations

SECURITY = "security"
COST = "cost"

"""Three AKS pools of Standard_NC24ads_A100_v4 that autoscale from zero to 4 nodes, their
expected use (5 hours a month) declared: the expected cost is within the budget, but every pool
at its max size all month (12 A100s on demand) is over the worst-case cap the policy config
sets."""

import pulumi_azure_native as azure
from _tags import TAGS

EXPECT = {"gpu-budget"}
POLICY_CONFIG = {"gpu-budget": {"worstCaseMonthlyUsd": 20000}}

for name in ("train", "infer", "eval"):
    azure.containerservice.AgentPool(
        f"aks-{name}",
        resource_group_name="ml",
        resource_name_="ml-aks",
        agent_pool_name=name,
        mode="User",
        vm_size="Standard_NC24ads_A100_v4",
        enable_auto_scaling=True,
        count=0,
        min_count=0,
        max_count=4,
        tags={**TAGS, "expected-minutes": "300"},
    )

"""Work on request comes in runs: how many a month the plan expects, and what each adds.

What each run adds once — an Azure ML cluster keeps its nodes for its idle time-out after a
job before it scales down, and bills them — is planned at one run per ``RUN_HOURS`` of work.
That forecast is declared on the capacity (``tag_keys.EXPECTED_RUNS``), so the cost engine
prices the same runs with the resource's own time-out, whatever it has been set to. No
pydantic here: the cost engine (and the policy pack) read it.
"""

from __future__ import annotations

import math

RUN_HOURS = 8.0
# How long gpufleet's Azure ML clusters wait idle before scaling down (the component's default).
AZURE_ML_IDLE_SECONDS = 600


def runs_per_month(hours: float) -> int:
    """The runs a month ``hours`` of work on request are planned in."""
    return math.ceil(hours / RUN_HOURS) if hours > 0 else 0

"""Render what ``gpufleet scale`` did: a few lines for people, or JSON for scripts."""

from __future__ import annotations

import json
from typing import Any

from gpufleet.runs.run_duration import describe_duration
from gpufleet.runs.scale_run import ScaleOutcome


def render(outcome: ScaleOutcome, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(as_json(outcome), indent=2) + "\n"
    return text(outcome)


def as_json(outcome: ScaleOutcome) -> dict[str, Any]:
    until = outcome.window.until
    return {
        "environment": outcome.environment,
        "workload": outcome.workload,
        "cloud": outcome.cloud,
        "region": outcome.region,
        "instances": outcome.count,
        "start": outcome.window.start.isoformat(timespec="seconds"),
        "until": None if until is None else until.isoformat(timespec="seconds"),
        "parts": [
            {
                "component": change.component,
                "instances": change.instances,
                "resources": list(change.resources),
                "guard": change.guard,
            }
            for change in outcome.changes
        ],
    }


def text(outcome: ScaleOutcome) -> str:
    window = outcome.window
    where = f"{outcome.environment}, {outcome.cloud} {outcome.region}"
    if window.until is None:
        head = f"{outcome.workload} ({where}): scaled to 0, run ended"
    else:
        length = describe_duration(window.until - window.start)
        end = window.until.strftime("%Y-%m-%d %H:%M UTC")
        head = f"{outcome.workload} ({where}): {outcome.count} instance(s) until {end} ({length})"
    lines = [head]
    for change in outcome.changes:
        lines.append(
            f"  {change.component} {', '.join(change.resources)}: {change.instances} "
            f"instance(s); {change.guard}"
        )
    return "\n".join(lines) + "\n"

"""Whether a workload's samples are enough to judge it by: never guessed from too little.

Too few utilization samples, a span shorter than a day's cycle, a newest sample older than
the fleet may have changed since, samples without times (their age unknown) or from the
future (a clock that is wrong) are each a stated reason, and the workload is not judged.
The thresholds are the command's options.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpufleet.rightsizing.usage_stats import UsageStats

# How far ahead of now a sample may be before its clock is taken to be wrong.
CLOCK_SKEW_HOURS = 1.0


@dataclass(frozen=True)
class Thresholds:
    min_samples: int = 100
    min_hours: float = 24.0
    max_age_days: float = 14.0


def why_not_judged(stats: UsageStats | None, now: float, limits: Thresholds) -> str | None:
    """The reason ``stats`` cannot be judged by, or None when they can."""
    if stats is None or (stats.utilization_samples == 0 and stats.memory_samples == 0):
        return "no samples matched it"
    count = stats.utilization_samples
    if count < limits.min_samples:
        return f"{count} utilization samples; at least {limits.min_samples} are needed to judge"
    if stats.last is None or stats.first is None:
        return "its samples have no times, so their age cannot be told"
    if stats.last > now + CLOCK_SKEW_HOURS * 3600:
        return "its newest sample is in the future: the collector's clock is wrong"
    if stats.span_hours < limits.min_hours:
        return (
            f"its samples span {stats.span_hours:.1f} h; at least {limits.min_hours:g} h "
            "are needed to see a day's load"
        )
    age_days = (now - stats.last) / 86400
    if age_days > limits.max_age_days:
        return (
            f"its newest sample is {age_days:.1f} days old; at most {limits.max_age_days:g} "
            "days are judged"
        )
    return None

"""What a run did to one part: the resources it changed and the guard it left (or removed)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PartChange:
    component: str
    instances: int  # what the part now runs (or is starting)
    resources: tuple[str, ...]  # the cloud resources changed, by name
    guard: str  # what returns it to zero, and when; for --to 0, what was removed

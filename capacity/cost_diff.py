"""What a change costs: two cost reports compared, per workload and resource (``gpufleet cost
--compare-to``), the way ``infracost diff`` compares two Terraform estimates.

Both sides are reports in their JSON shape (``cost_report``): the base branch's is read from a
saved report or priced from a stack export. Resources are matched by URN less its stack and
project (``<type chain>::<name>``), so a stack compares with the same stack on another branch,
or with another environment of the same program. A resource is added, removed, changed (its
machine, count, pricing, region, rate or cost differ) or unchanged; deltas are monthly,
expected and maximum; the largest changes, by the expected delta, come first.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from gpufleet.capacity.cost_engine import FIGURES, Figure
from gpufleet.capacity.cost_report import HALF_CENT
from gpufleet.tag_keys import EXPECTED_MINUTES

Status = Literal["added", "removed", "changed", "unchanged"]


@dataclass(frozen=True)
class ResourceChange:
    status: Status
    workload: str
    name: str
    key: str
    base: dict[str, Any] | None
    head: dict[str, Any] | None
    changes: tuple[str, ...]  # what changed, in words: "instances 1 -> 4"

    def monthly(self, side: Literal["base", "head"], which: Figure) -> float:
        entry = self.base if side == "base" else self.head
        if entry is None or not entry["in_totals"]:
            return 0.0
        return entry[which]["monthly_usd"] or 0.0

    def delta(self, which: Figure) -> float:
        return self.monthly("head", which) - self.monthly("base", which)


@dataclass(frozen=True)
class WorkloadChange:
    name: str
    base: dict[str, Any] | None  # the workload's entry on each side
    head: dict[str, Any] | None
    resources: tuple[ResourceChange, ...]

    def monthly(self, side: Literal["base", "head"], which: Figure) -> float:
        entry = self.base if side == "base" else self.head
        return 0.0 if entry is None else entry[which]["monthly_usd"]

    def delta(self, which: Figure) -> float:
        return self.monthly("head", which) - self.monthly("base", which)


@dataclass(frozen=True)
class CostDiff:
    base: dict[str, Any]
    head: dict[str, Any]
    workloads: tuple[WorkloadChange, ...]

    def total(self, side: Literal["base", "head"], which: Figure) -> float:
        report = self.base if side == "base" else self.head
        return report["totals"][which]["monthly_usd"]

    def delta(self, which: Figure) -> float:
        return self.total("head", which) - self.total("base", which)

    def unpriced(self, side: Literal["base", "head"]) -> int:
        """GPU resources a side's totals leave out because they have no price."""
        report = self.base if side == "base" else self.head
        return report["totals"]["unpriced"]

    @cached_property
    def changed(self) -> list[ResourceChange]:
        """Every added, removed or changed resource, the largest expected change first."""
        found = [r for w in self.workloads for r in w.resources if r.status != "unchanged"]
        return sorted(
            found,
            key=lambda r: (-abs(r.delta("expected")), -abs(r.delta("maximum")), r.workload, r.name),
        )

    @cached_property
    def by_workload(self) -> dict[str, WorkloadChange]:
        return {w.name: w for w in self.workloads}


def resource_key(urn: str, part: str | None = None) -> str:
    """A resource's identity across stacks: its URN less ``urn:pulumi:<stack>::<project>``,
    and the part, for a resource of several."""
    parts = urn.split("::", 2)
    key = parts[2] if len(parts) == 3 else urn
    return key if part is None else f"{key}#{part}"


def diff_reports(base: dict[str, Any], head: dict[str, Any]) -> CostDiff:
    base_items = _resources(base)
    head_items = _resources(head)
    changes: list[ResourceChange] = []
    for key in dict.fromkeys([*head_items, *base_items]):
        old = base_items.get(key)
        new = head_items.get(key)
        if old is None and new is not None:
            changes.append(_change("added", key, None, new, ()))
        elif new is None and old is not None:
            changes.append(_change("removed", key, old, None, ()))
        elif old is not None and new is not None:
            what = _what_changed(old[1], new[1])
            changes.append(_change("changed" if what else "unchanged", key, old, new, what))
    base_workloads = {w["name"]: w for w in base["workloads"]}
    head_workloads = {w["name"]: w for w in head["workloads"]}
    of_workload: dict[str, list[ResourceChange]] = {}
    for c in changes:
        of_workload.setdefault(c.workload, []).append(c)
    names = dict.fromkeys([*head_workloads, *base_workloads, *of_workload])
    workloads = tuple(
        WorkloadChange(
            name,
            base_workloads.get(name),
            head_workloads.get(name),
            tuple(
                sorted(
                    of_workload.get(name, ()),
                    key=lambda c: (-abs(c.delta("expected")), c.name),
                )
            ),
        )
        for name in sorted(names)
    )
    return CostDiff(base, head, workloads)


def _resources(report: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    return {
        resource_key(r["urn"], r.get("part")): (w["name"], r)
        for w in report["workloads"]
        for r in w["resources"]
    }


def _change(
    status: Status,
    key: str,
    old: tuple[str, dict[str, Any]] | None,
    new: tuple[str, dict[str, Any]] | None,
    what: tuple[str, ...],
) -> ResourceChange:
    workload, entry = new or old  # type: ignore[misc]  # one of them is set
    return ResourceChange(
        status,
        workload,
        entry["name"],
        key,
        None if old is None else old[1],
        None if new is None else new[1],
        what,
    )


def _what_changed(old: dict[str, Any], new: dict[str, Any]) -> tuple[str, ...]:
    what: list[str] = []

    def compare(label: str, before: Any, after: Any) -> None:
        if before != after:
            what.append(f"{label} {_words(before)} -> {_words(after)}")

    compare("instance type", "/".join(old["instance_types"]), "/".join(new["instance_types"]))
    compare("region", old["region"], new["region"])
    compare("pricing", old["pricing"], new["pricing"])
    for which in FIGURES:
        compare(f"{which} instances", old[which]["instances"], new[which]["instances"])
    compare("hours", old["expected"]["hours"], new["expected"]["hours"])
    # What it declares and what its settings run, which a hand edit moves without touching a
    # machine or a count (older reports hold no declared use: not compared then).
    if "declared_minutes" in old and "declared_minutes" in new:
        compare(
            f"declared use ({EXPECTED_MINUTES}) h/month",
            _hours(old["declared_minutes"]),
            _hours(new["declared_minutes"]),
        )
    if old["basis"] != new["basis"] and old["unpriced"] is None and new["unpriced"] is None:
        what.append(f"expected now: {new['basis']}")
    compare("rate $/h", old["rate_usd"], new["rate_usd"])
    if (old["unpriced"] is None) != (new["unpriced"] is None):
        what.append("now unpriced" if new["unpriced"] else "now priced")
    if not what and any(
        abs((old[w]["monthly_usd"] or 0.0) - (new[w]["monthly_usd"] or 0.0)) > HALF_CENT
        for w in FIGURES
    ):
        what.append("cost")
    return tuple(what)


def _hours(minutes: int | None) -> float | None:
    return None if minutes is None else round(minutes / 60, 2)


def _words(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)

"""``gpufleet preflight`` short of rendering: a stack's needs against its account's quotas.

The stack config is read as ``gpufleet runs`` reads it (nothing runs the program); each cloud
it places capacity on is asked for its quotas in the regions it uses (the GCP project and
Azure subscription of ``site:``). Every need is checked against each quota that covers it:
short when what the stack asks for is more than what is free (limit less use, where the cloud
says the use). A need no quota read covers is unchecked, and a cloud that cannot be read is a
problem: both fail the preflight, as a short quota does (fail closed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gpufleet.clouds import CLOUDS, Cloud
from gpufleet.live_prices.price_source import read_at
from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.quotas import Quota
from gpufleet.preflight.needs import QuotaNeed, stack_needs
from gpufleet.preflight.spot_scores import SpotScore, spot_scores
from gpufleet.runs.cloud_error import CloudError
from gpufleet.runs.stack_target import StackTarget, read_stack
from gpufleet.stacks.stack_config import StackConfigError


@dataclass
class QuotaCheck:
    quota: Quota
    needed: float = 0.0
    workloads: list[str] = field(default_factory=list)

    @property
    def short(self) -> bool:
        return self.needed > self.quota.free + 1e-9

    def as_dict(self) -> dict[str, Any]:
        return self.quota.as_dict() | {
            "free": self.quota.free,
            "needed": self.needed,
            "short": self.short,
            "workloads": self.workloads,
        }


@dataclass(frozen=True)
class Preflight:
    environment: str
    read_at: str
    quotas: list[Quota]  # every quota read
    checks: list[QuotaCheck]  # those the stack's needs count against
    unchecked: list[str]  # needs no quota read covers
    skipped: list[str]  # parts not checked here, and why
    problems: list[str]  # clouds that could not be read
    # AWS's spot placement scores of the stack's spot needs: advice, never a failure.
    spot_scores: list[SpotScore] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and not self.unchecked and not any(c.short for c in self.checks)

    def as_dict(self) -> dict[str, Any]:
        """The saved preflight ``gpufleet plan --respect-quotas`` reads (its ``quotas``)."""
        return {
            "environment": self.environment,
            "read_at": self.read_at,
            "ok": self.ok,
            "checks": [c.as_dict() for c in self.checks],
            "unchecked": self.unchecked,
            "skipped": self.skipped,
            "problems": self.problems,
            "spot_scores": [s.as_dict() for s in self.spot_scores],
            "quotas": [q.as_dict() for q in self.quotas],
        }


def _readers(target: StackTarget) -> dict[Cloud, Callable[[list[str]], list[Quota]]]:
    """Each cloud's quota reader, given the regions to read (imported when used)."""

    def aws(regions: list[str]) -> list[Quota]:
        from gpufleet.preflight.aws_quotas import aws_quotas

        return aws_quotas(regions)

    def gcp(regions: list[str]) -> list[Quota]:
        from gpufleet.preflight.gcp_quotas import gcp_quotas

        return gcp_quotas(target.site.gcp().project, regions)

    def azure(regions: list[str]) -> list[Quota]:
        from gpufleet.preflight.azure_quotas import azure_quotas

        subscription = target.site.azure().subscription_id
        if subscription is None:
            raise StackConfigError("site:azure: subscriptionId is not set; preflight needs it")
        return azure_quotas(subscription, regions)

    return {"aws": aws, "gcp": gcp, "azure": azure}


def preflight(program: Path, stack: str, config_file: Path | None) -> Preflight:
    """ScaleInputError for a stack config that is not one."""
    target = read_stack(program, stack, config_file)
    needs = stack_needs(target.settings.workloads, load_catalog())
    readers = _readers(target)
    quotas: list[Quota] = []
    problems: list[str] = []
    for cloud in CLOUDS:
        regions = sorted({n.region for n in needs.needs if n.cloud == cloud})
        if not regions:
            continue
        try:
            quotas += readers[cloud](regions)
        except (CloudError, StackConfigError) as exc:
            problems.append(f"{cloud}: quotas not read: {exc}")
    checks: dict[int, QuotaCheck] = {}
    unchecked: list[str] = list(needs.unsized)
    unread = {p.split(":", 1)[0] for p in problems}
    for need in needs.needs:
        applying = [
            i
            for i, q in enumerate(quotas)
            if q.applies(need.cloud, need.region, need.covered, need.market)
        ]
        if not applying and need.cloud not in unread:
            unchecked.append(_unchecked(need))
        for i in applying:
            check = checks.setdefault(i, QuotaCheck(quotas[i]))
            check.needed += need.amount
            check.workloads += [w for w in need.workloads if w not in check.workloads]
    scores: list[SpotScore] = []
    if any(n.cloud == "aws" and n.market == "spot" for n in needs.needs):
        scores = spot_scores(needs.needs)
    return Preflight(
        stack,
        read_at(datetime.now(UTC)),
        quotas,
        [checks[i] for i in sorted(checks)],
        unchecked,
        needs.skipped,
        problems,
        scores,
    )


def _unchecked(need: QuotaNeed) -> str:
    return (
        f"{need.cloud} {need.region} {need.instance_type} ({need.market}, "
        f"{', '.join(need.workloads)}): no quota read covers it"
    )

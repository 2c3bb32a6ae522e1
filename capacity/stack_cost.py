"""``gpufleet cost`` end to end, short of rendering: load the stack, price it, hold it to its
budget, compare it with a base.

``cost_stack(request)`` loads the stack as ``gpufleet check`` does (``engine.stack_source``: the
program run under the offline engine, or a stack export, with its stack's config), prices it
with the cost engine, and finds its budget where the ``gpu-budget`` policy does — the policy
config's ``monthlyBudgetUsd`` (and ``estimate``), else the environment's budget from the
generated stack config (``gpufleet:limits``) — so ``cost`` and ``check`` agree. The plan's own
figures come from the stack config too, when ``gpufleet generate`` wrote it; the commitments
the account holds from its ``site:commitments`` and ``--commitments FILE``. With a base
(``compare_to``: a saved ``--format json`` report or a stack export), the result carries the
diff. Bad input raises ``CostInputError`` (one line per problem, exit 2); a program that raises
raises ``engine.program_dir.ProgramRunError`` (exit 1).

This module loads stacks, so it imports the offline engine (pulumi); the rest of
``gpufleet.capacity`` does not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpufleet.capacity.commitments import HeldCommitment
from gpufleet.capacity.commitments_file import (
    CommitmentsFileError,
    read_commitments_file,
    stack_config_problems,
)
from gpufleet.capacity.cost_diff import CostDiff, diff_reports
from gpufleet.capacity.cost_engine import price_stack
from gpufleet.capacity.cost_report import (
    Budget,
    CostReport,
    ReportError,
    check_report,
    is_report,
)
from gpufleet.capacity.stack_resource import stack_resources
from gpufleet.capacity.zone_names import NO_ZONE_NAMES, ZoneNames
from gpufleet.checks.analyzer_protocol import PackInfo, PolicyInfo
from gpufleet.checks.policy_config import PolicyConfigError, load_policy_config, reconcile
from gpufleet.engine.analyzer_resources import (
    AnalyzerResource,
    DeploymentError,
    from_deployment,
    project_of,
)
from gpufleet.engine.program_dir import ProgramError
from gpufleet.engine.secret_mask import SecretMask
from gpufleet.engine.stack_source import StackSource, load_stack
from gpufleet.json_input import JsonInputError, read_json_file
from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.rates import RateCard, shipped_rate_card
from gpufleet.policies.pack import PACK_NAME, PACK_VERSION
from gpufleet.policies.rules import all_policies
from gpufleet.policies.rules.gpu_budget import WORST_CASE_KEY, budget_of
from gpufleet.policies.rules.plan_drift import TOLERANCE_KEY
from gpufleet.policies.stack_limits import StackLimits, current_limits, limits_in
from gpufleet.stacks import config_keys

BUDGET_POLICY = "gpu-budget"
DRIFT_POLICY = "plan-drift"


class CostInputError(Exception):
    """What the user gave cannot be used; one line per problem."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class CostRequest:
    source: StackSource
    pack_dir: Path  # gpufleet's pack: its config/<stack>.json is the default policy config
    policy_config: Path | None = None
    compare_to: Path | None = None
    commitments_file: Path | None = None  # --commitments: held beside site:commitments


@dataclass(frozen=True)
class CostOutcome:
    report: CostReport
    diff: CostDiff | None  # with compare_to
    # Applied to every rendering: the report names machines and regions, which may be secret.
    mask: SecretMask = field(default_factory=lambda: SecretMask([]))


def cost_stack(request: CostRequest) -> CostOutcome:
    """The stack's cost report (and its diff against ``compare_to``). CostInputError for bad
    input; ProgramRunError when the program raises."""
    try:
        # What the command reads is read before the program runs (it is untrusted, and could
        # rewrite a file read after it started): the policy config, the base, the catalog.
        setting = _budget_setting(request)
        base_file = _read_base(request.compare_to) if request.compare_to is not None else None
        extra = (
            read_commitments_file(request.commitments_file)
            if request.commitments_file is not None
            else []
        )
        load_catalog()
        loaded = load_stack(request.source)
        limits = limits_in(loaded.config)
        held = held_commitments(loaded.config, loaded.config_file, extra)
        # The base is priced with the head's rate card and commitments, so the diff shows what
        # the change does to the resources, not a difference in assumptions.
        rates = shipped_rate_card(limits.commitment_discounts if limits else None)
        zones = limits.zones if limits else NO_ZONE_NAMES
        base, base_resources = (
            _base(base_file, rates, held, zones) if base_file is not None else (None, [])
        )
    except (ProgramError, DeploymentError, ReportError) as exc:
        raise CostInputError([str(exc)]) from None
    except (PolicyConfigError, CommitmentsFileError) as exc:
        raise CostInputError(exc.problems) from None
    cost = price_stack(
        stack_resources(loaded.resources),
        rates,
        plan=planned(loaded.config),
        commitments=held,
        zones=zones,
    )
    budget = _budget(setting, limits)
    report = CostReport(
        loaded.project, request.source.stack, cost, budget, _cap(setting), setting.drift_tolerance
    )
    diff = diff_reports(base, report.as_dict()) if base is not None else None
    return CostOutcome(report, diff, SecretMask([*loaded.resources, *base_resources]))


def held_commitments(
    config: dict[str, str], config_file: Path | None, extra: list[HeldCommitment]
) -> list[HeldCommitment]:
    """The commitments the stack config declares (``site:commitments``) and ``extra`` (a
    ``--commitments`` file's); CommitmentsFileError for a declaration that is not one: a
    user's declaration is never silently dropped."""
    problems = stack_config_problems(config, config_keys.COMMITMENTS_KEY, config_file)
    if problems:
        raise CommitmentsFileError(problems)
    limits = limits_in(config)
    return [*(limits.commitments if limits else ()), *extra]


def planned(config: dict[str, str]) -> dict[str, float]:
    """Each workload's monthly cost in the plan a generated stack config was written from
    (``gpufleet:workloads``); empty for other stacks."""
    limits = limits_in(config)
    return dict(limits.planned_monthly_usd) if limits is not None else {}


@dataclass(frozen=True)
class _BudgetSetting:
    level: str  # the gpu-budget policy's enforcement level ("disabled": no budget at all)
    settings: dict[str, Any]  # its properties, defaults filled in
    path: Path | None  # the policy config they come from, if any
    # The plan-drift policy's tolerance (a fraction), None when it is disabled.
    drift_tolerance: float | None = None


def _budget_setting(request: CostRequest) -> _BudgetSetting:
    """What the gpu-budget policy's config says (its defaults without one), validated as
    ``gpufleet check`` validates it."""
    path = request.policy_config
    default = request.pack_dir / "config" / f"{request.source.stack}.json"
    if path is None and default.is_file():
        path = default
    config, text = load_policy_config(path) if path is not None else ({}, "")
    policies = reconcile(_pack_info(), config, path=path, text=text)
    level, props = policies[BUDGET_POLICY]
    drift_level, drift = policies[DRIFT_POLICY]
    tolerance = None if drift_level == "disabled" else float(drift[TOLERANCE_KEY]) / 100
    return _BudgetSetting(level, props, path, tolerance)


def _budget(setting: _BudgetSetting, limits: StackLimits | None) -> Budget | None:
    """The budget the gpu-budget policy holds this stack to, found by the policy's own rule
    (its config's, else the spec's in the stack config), at its estimate and level."""
    if setting.level == "disabled":
        return None
    with current_limits(limits or StackLimits()):
        monthly = budget_of(setting.settings)
    if monthly is None:
        return None
    if setting.settings.get("monthlyBudgetUsd") is not None:
        source = f"{setting.path}: {BUDGET_POLICY}.monthlyBudgetUsd"
    else:
        source = f"the spec's monthly_budget_usd ({config_keys.LIMITS_KEY} in the stack config)"
    return Budget(float(monthly), setting.settings["estimate"], source, setting.level)


def _cap(setting: _BudgetSetting) -> Budget | None:
    """The worst-case cap gpu-budget holds the maximum figure to, when its config sets one."""
    cap = setting.settings.get(WORST_CASE_KEY)
    if setting.level == "disabled" or cap is None:
        return None
    source = f"{setting.path}: {BUDGET_POLICY}.{WORST_CASE_KEY}"
    return Budget(float(cap), "maximum", source, setting.level, what="worst-case cap")


def _pack_info() -> PackInfo:
    """gpufleet's pack as the engine would describe it, without starting it."""
    return PackInfo(
        PACK_NAME,
        PACK_VERSION,
        tuple(
            PolicyInfo(
                p.name,
                p.description or "",
                p.enforcement_level.value if p.enforcement_level else "mandatory",
                {
                    "properties": p.config_schema.properties if p.config_schema else {},
                    "required": (p.config_schema.required or []) if p.config_schema else [],
                },
                False,
                "",
            )
            for p in all_policies()
        ),
        {},
    )


def _read_base(path: Path) -> tuple[Path, Any, str]:
    try:
        data, text = read_json_file(path, what="a cost report or a stack export")
    except JsonInputError as exc:
        raise ReportError(str(exc)) from None
    return path, data, text


def _base(
    base_file: tuple[Path, Any, str],
    rates: RateCard,
    held: list[HeldCommitment],
    zones: ZoneNames,
) -> tuple[dict[str, Any], list[AnalyzerResource]]:
    """The base to compare with: a saved cost report, or a stack export priced here; and the
    export's resources (their secrets are masked too)."""
    path, data, text = base_file
    if is_report(data):
        return check_report(data, str(path), text), []
    if isinstance(data, dict) and "deployment" in data:
        resources = from_deployment(data, str(path), text)
        stack = resources[0].urn.split("::", 1)[0].rsplit(":", 1)[-1] if resources else ""
        cost = price_stack(stack_resources(resources), rates, commitments=held, zones=zones)
        return CostReport(project_of(resources), stack, cost).as_dict(), resources
    raise ReportError(
        f"{path}:1: json: neither a gpufleet cost report (--format json) nor a pulumi stack export"
    )

"""Hand edits of a generated stack: each changes ``gpufleet cost``'s expected figure to what the
edited resources will really run, and the budget and drift policies see it.

The stacks are the covering specs' (every component in every scaling it follows, on the three
clouds), exported as deployed. Hypothesis draws the edits a reviewer would not catch in a diff:
a min size raised to the max (an ASG's ``minSize``, a GCP autoscaler's ``minReplicas``, an
Azure ML cluster's ``minNodeCount``, an Azure autoscale setting's profile minimums), a
scheduled action raising an ASG's min, a scale-in removed (an AWS policy deleted, a GCP
autoscaler made ``ONLY_SCALE_OUT``, an Azure rule that decreases deleted), an Azure ML idle
time-out raised, an ``expected-minutes`` tag deleted or set to a lie. The oracle is written
from the clouds' rules, not from the engine: what runs at its max size all month costs its
maximum figure; what a disabled scaler or an autoscaler that is off is told changes nothing; a
group at zero declaring no use is unpriced; a declared use is that many hours at the max size.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import isodate
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from gpufleet.capacity.cost_diff import diff_reports
from gpufleet.capacity.cost_engine import ResourceCost, StackCost, price_stack
from gpufleet.capacity.cost_report import CostReport, check_report
from gpufleet.capacity.stack_resource import stack_resources
from gpufleet.engine.analyzer_resources import from_deployment
from gpufleet.engine.stack_export import deployment
from gpufleet.planner.rates import shipped_rate_card
from gpufleet.policies.pack import CONFIG_DIR
from gpufleet.policies.stack_limits import limits_in
from gpufleet.policies.testing import PolicyHarness
from gpufleet.pricing_models import HOURS_PER_MONTH
from gpufleet.tag_keys import EXPECTED_MINUTES, EXPECTED_RUNS
from tests.capacity.test_plan_priced_alike import generated_project
from tests.checks.test_gate_agrees_with_builder import COVERING, SITE, spec_text
from tests.stack_captures import capture_generated

Deployment = dict[str, Any]
Resource = dict[str, Any]


@dataclass(frozen=True)
class Stack:
    deployment: Deployment
    config: dict[str, str]


def covering_stack(cloud: str, scratch: Path) -> Stack:
    generated_project(scratch, spec_text(COVERING[cloud], "prod", "{max_commitment: 1y}"), SITE)
    capture, setup = capture_generated(scratch, "prod")
    return Stack(json.loads(json.dumps(deployment(capture))), dict(setup.config))


@pytest.fixture(scope="module")
def stacks(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Stack]:
    """Each cloud's covering stack, generated once for the module."""

    @cache
    def stack(cloud: str) -> Stack:
        return covering_stack(cloud, tmp_path_factory.mktemp(cloud))

    return stack


def price(stack: Stack, edited: Deployment) -> StackCost:
    """As ``gpufleet cost`` prices it, the plan's figures beside."""
    limits = limits_in(stack.config)
    assert limits is not None
    rates = shipped_rate_card(limits.commitment_discounts)
    resources = stack_resources(from_deployment(edited, "export"))
    return price_stack(resources, rates, plan=dict(limits.planned_monthly_usd), zones=limits.zones)


def resources(dep: Deployment) -> list[Resource]:
    found: list[Resource] = dep["deployment"]["resources"]
    return found


def name_of(r: Resource) -> str:
    return str(r["urn"]).rsplit("::", 1)[-1]


def kind_of(r: Resource) -> str:
    return str(r["type"]).rsplit(":", 1)[-1]


def both(r: Resource, edit: Callable[[dict[str, Any]], None]) -> None:
    """Edit what the export holds of a resource: its inputs and its outputs alike."""
    for side in ("inputs", "outputs"):
        edit(r[side])


def target_of(r: Resource, prop: str) -> str:
    """The resource a scaler's property depends on (the group it sizes)."""
    (urn,) = r["propertyDependencies"][prop]
    return str(urn)


# --- the edits: (what it does, the resource whose line it moves, what that line then costs) --
# An outcome: "max" (its max size all month), "same" (nothing changes), "unpriced", "floor" (its
# min size all month, said), or the hours a month its max size runs.
Outcome = str | float


@dataclass(frozen=True)
class Edit:
    what: str
    line_urn: str
    outcome: Outcome
    apply: Callable[[Deployment], None]


def _declared(r: Resource) -> tuple[int | None, int | None]:
    """The expected minutes and runs a resource declares (tags, labels, description)."""
    props = r["outputs"]
    tags = props.get("tags") or props.get("labels") or {}
    if isinstance(tags, list):
        tags = {t["key"]: t["value"] for t in tags}
    words = dict(w.split("=", 1) for w in str(props.get("description", "")).split() if "=" in w)
    found = {**words, **tags}
    minutes, runs = found.get(EXPECTED_MINUTES), found.get(EXPECTED_RUNS)
    return (None if minutes is None else int(minutes)), (None if runs is None else int(runs))


def _set_declared(r: Resource, minutes: int | None) -> None:
    """Set (or, None, delete) a resource's ``expected-minutes`` wherever it carries it."""

    def edit(props: dict[str, Any]) -> None:
        tags = props.get("tags") if "tags" in props else props.get("labels")
        if isinstance(tags, list):
            kept = [t for t in tags if t["key"] != EXPECTED_MINUTES]
            if minutes is not None:
                kept.append({"key": EXPECTED_MINUTES, "value": str(minutes)})
            tags[:] = kept
        elif isinstance(tags, dict) and EXPECTED_MINUTES in tags:
            if minutes is None:
                del tags[EXPECTED_MINUTES]
            else:
                tags[EXPECTED_MINUTES] = str(minutes)
        if EXPECTED_MINUTES in str(props.get("description", "")):
            words = [
                w for w in str(props["description"]).split() if not w.startswith(EXPECTED_MINUTES)
            ]
            if minutes is not None:
                words.append(f"{EXPECTED_MINUTES}={minutes}")
            props["description"] = " ".join(words)

    both(r, edit)


def edits(stack: Stack, lines: dict[str, ResourceCost]) -> list[Callable[[int], Edit]]:
    """Every edit the stack offers, each drawn with a number (a lie, an idle time)."""
    found: list[Callable[[int], Edit]] = []
    deps = resources(stack.deployment)

    def at(index: int) -> Callable[[Deployment], Resource]:
        return lambda dep: resources(dep)[index]

    for index, r in enumerate(deps):
        get, kind, props = at(index), kind_of(r), r["outputs"]
        line = lines.get(r["urn"])
        moves = line is not None and line.expected.monthly_usd != line.maximum.monthly_usd
        if kind == "Group" and moves:
            found.append(_min_to_max_asg(get, r["urn"]))
            found.append(_scheduled_min_asg(r, r["urn"]))
        if kind == "RegionAutoscaler":
            group = target_of(r, "target")
            if lines[group].expected.monthly_usd != lines[group].maximum.monthly_usd:
                found.append(_gcp_min_to_max(get, group, props["autoscalingPolicy"]["mode"]))
                if props["autoscalingPolicy"]["mode"] != "OFF":
                    found.append(_gcp_only_out(get, group))
        if kind == "Policy" and any(
            s["scalingAdjustment"] < 0 for s in props.get("stepAdjustments", [])
        ):
            found.append(
                _delete(
                    index,
                    "an ASG's scale-in policy deleted",
                    target_of(r, "autoscalingGroupName"),
                    "max",
                )
            )
        if kind == "AutoscaleSetting":
            vmss = target_of(r, "targetResourceUri")
            outcome: Outcome = "max" if props.get("enabled") is True else "same"
            found.append(_azure_min_to_max(get, vmss, outcome))
            if any(
                rule["scaleAction"]["direction"] == "Decrease"
                for p in props["profiles"]
                for rule in p.get("rules", [])
            ):
                found.append(_azure_no_decrease(get, vmss, outcome))
        if kind == "Compute" and line is not None:
            found.append(_aml_min_to_max(get, r["urn"]))
            found.append(_aml_idle(get, r, line))
        minutes, _ = _declared(r)
        if minutes is not None:
            # The line whose use it declares: its own, or (a GCP autoscaler) its group's.
            urn = target_of(r, "target") if kind == "RegionAutoscaler" else r["urn"]
            declared = lines.get(urn)
            if declared is not None and "expected use" in declared.basis:
                at_zero = "its minimum all month" not in declared.basis
                found.append(_drop_tag(get, urn, at_zero))
                if at_zero:
                    found.append(_lie_tag(get, urn, _idle_after_runs(r)))
    return found


def _min_to_max_asg(get: Callable[[Deployment], Resource], urn: str) -> Callable[[int], Edit]:
    def apply(dep: Deployment) -> None:
        both(get(dep), lambda p: p.update(minSize=p["maxSize"]))

    return lambda _: Edit("an ASG's minSize raised to its maxSize", urn, "max", apply)


def _scheduled_min_asg(group: Resource, urn: str) -> Callable[[int], Edit]:
    most = group["outputs"]["maxSize"]

    def apply(dep: Deployment) -> None:
        # Monday 08:00, weekly: the min raised, and no action lowers it.
        action = {
            "urn": f"{urn.rsplit('::', 2)[0]}::aws:autoscaling/schedule:Schedule::hand-min",
            "custom": True,
            "type": "aws:autoscaling/schedule:Schedule",
            "inputs": {},
            "outputs": {},
            "parent": group["parent"],
            "provider": group["provider"],
            "dependencies": [urn],
            "propertyDependencies": {"autoscalingGroupName": [urn]},
        }
        both(
            action,
            lambda p: p.update(
                scheduledActionName="hand-min",
                autoscalingGroupName=group["outputs"]["name"],
                recurrence="0 8 * * 1",
                minSize=most,
                maxSize=-1,
                desiredCapacity=-1,
            ),
        )
        resources(dep).append(action)

    return lambda _: Edit("a scheduled action raising an ASG's min", urn, "max", apply)


def _gcp_min_to_max(
    get: Callable[[Deployment], Resource], group: str, mode: str
) -> Callable[[int], Edit]:
    def apply(dep: Deployment) -> None:
        def edit(p: dict[str, Any]) -> None:
            policy = p["autoscalingPolicy"]
            policy["minReplicas"] = policy["maxReplicas"]

        both(get(dep), edit)

    # An autoscaler that is off sizes nothing, whatever its bounds.
    outcome = "same" if mode == "OFF" else "max"
    return lambda _: Edit("a GCP autoscaler's minReplicas raised", group, outcome, apply)


def _gcp_only_out(get: Callable[[Deployment], Resource], group: str) -> Callable[[int], Edit]:
    def apply(dep: Deployment) -> None:
        both(get(dep), lambda p: p["autoscalingPolicy"].update(mode="ONLY_SCALE_OUT"))

    return lambda _: Edit("a GCP autoscaler made ONLY_SCALE_OUT", group, "max", apply)


def _delete(index: int, what: str, urn: str, outcome: Outcome) -> Callable[[int], Edit]:
    def apply(dep: Deployment) -> None:
        del resources(dep)[index]

    return lambda _: Edit(what, urn, outcome, apply)


def _azure_min_to_max(
    get: Callable[[Deployment], Resource], vmss: str, outcome: Outcome
) -> Callable[[int], Edit]:
    def apply(dep: Deployment) -> None:
        def edit(p: dict[str, Any]) -> None:
            # Every profile (a schedule's idle one too) held at the setting's largest size.
            most = max(int(profile["capacity"]["maximum"]) for profile in p["profiles"])
            for profile in p["profiles"]:
                profile["capacity"] = {
                    "minimum": str(most),
                    "maximum": str(most),
                    "default": str(most),
                }

        both(get(dep), edit)

    return lambda _: Edit("an autoscale setting's minimums raised", vmss, outcome, apply)


def _azure_no_decrease(
    get: Callable[[Deployment], Resource], vmss: str, outcome: Outcome
) -> Callable[[int], Edit]:
    def apply(dep: Deployment) -> None:
        def edit(p: dict[str, Any]) -> None:
            for profile in p["profiles"]:
                profile["rules"] = [
                    r
                    for r in profile.get("rules", [])
                    if r["scaleAction"]["direction"] != "Decrease"
                ]

        both(get(dep), edit)

    return lambda _: Edit("an autoscale rule that decreases deleted", vmss, outcome, apply)


def _aml_settings(p: dict[str, Any]) -> dict[str, Any]:
    settings: dict[str, Any] = p["properties"]["properties"]["scaleSettings"]
    return settings


def _aml_min_to_max(get: Callable[[Deployment], Resource], urn: str) -> Callable[[int], Edit]:
    def apply(dep: Deployment) -> None:
        both(
            get(dep),
            lambda p: _aml_settings(p).update(minNodeCount=_aml_settings(p)["maxNodeCount"]),
        )

    return lambda _: Edit("an Azure ML cluster's minNodeCount raised", urn, "max", apply)


def _aml_idle(
    get: Callable[[Deployment], Resource], cluster: Resource, line: ResourceCost
) -> Callable[[int], Edit]:
    minutes, runs = _declared(cluster)
    assert minutes is not None and runs is not None

    def make(idle_minutes: int) -> Edit:
        def apply(dep: Deployment) -> None:
            both(
                get(dep),
                lambda p: _aml_settings(p).update(nodeIdleTimeBeforeScaleDown=f"PT{idle_minutes}M"),
            )

        # Each of its runs keeps the nodes for the time-out after it, within the month.
        hours = min(HOURS_PER_MONTH, minutes / 60 + runs * idle_minutes / 60)
        return Edit(f"an Azure ML idle time-out of {idle_minutes} min", line.urn, hours, apply)

    return make


def _drop_tag(
    get: Callable[[Deployment], Resource], urn: str, at_zero: bool
) -> Callable[[int], Edit]:
    def apply(dep: Deployment) -> None:
        _set_declared(get(dep), None)

    # At zero, what it runs is unknown: unpriced. Above a floor (an always-on base), the
    # floor is known, and what load adds is not guessed.
    outcome = "unpriced" if at_zero else "floor"
    return lambda _: Edit("its expected-minutes deleted", urn, outcome, apply)


def _idle_after_runs(r: Resource) -> float:
    """Hours an Azure ML cluster idles after its declared runs a month (0 for the rest)."""
    if kind_of(r) != "Compute":
        return 0.0
    _, runs = _declared(r)
    idle = isodate.parse_duration(_aml_settings(r["outputs"])["nodeIdleTimeBeforeScaleDown"])
    return (runs or 0) * idle.total_seconds() / 3600


def _lie_tag(
    get: Callable[[Deployment], Resource], urn: str, idle_hours: float
) -> Callable[[int], Edit]:
    def make(minutes: int) -> Edit:
        def apply(dep: Deployment) -> None:
            _set_declared(get(dep), minutes)

        # What it declares, at its max size, and the idle time after its runs if it has one.
        hours = min(minutes / 60 + (idle_hours if minutes else 0.0), HOURS_PER_MONTH)
        return Edit(f"its expected-minutes set to {minutes}", urn, hours, apply)

    return make


def expected_after(before: ResourceCost, after: ResourceCost, outcome: Outcome) -> float | None:
    """What the edited line must cost (None: unpriced), from the oracle's outcome."""
    if outcome == "unpriced":
        return None
    if outcome == "same":
        return before.expected.monthly_usd
    if outcome == "floor":
        # Its floor all month: the line's instances at rest, priced as before the burst.
        assert "not priced above its min size" in after.basis, after.basis
        return after.expected.monthly_usd
    assert after.maximum.monthly_usd is not None
    if outcome == "max":
        return after.maximum.monthly_usd
    assert isinstance(outcome, int | float)
    # Its max size for that many hours (its maximum figure is its max size all month).
    return after.maximum.monthly_usd * outcome / HOURS_PER_MONTH


PROD = json.loads((CONFIG_DIR / "prod.json").read_text())


@settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(cloud=st.sampled_from(sorted(COVERING)), data=st.data())
def test_a_hand_edit_prices_what_the_edited_stack_runs_and_the_policies_see_it(
    stacks: Callable[[str], Stack], cloud: str, data: st.DataObject
) -> None:
    stack = stacks(cloud)
    unedited = price(stack, stack.deployment)
    lines = {r.urn: r for r in unedited.resources}
    choices = edits(stack, lines)
    edit = data.draw(st.sampled_from(choices))(data.draw(st.integers(0, 50_000)))
    note(edit.what)
    edited = copy.deepcopy(stack.deployment)
    edit.apply(edited)
    cost = price(stack, edited)
    before, after = lines[edit.line_urn], {r.urn: r for r in cost.resources}[edit.line_urn]
    wanted = expected_after(before, after, edit.outcome)
    if wanted is None:
        assert after.expected.monthly_usd is None and after.unpriced, after
        assert "declares no expected use" in after.unpriced
    else:
        assert after.unpriced is None, after
        assert after.expected.monthly_usd == pytest.approx(wanted, rel=0.01, abs=0.01), (
            edit.what,
            after.basis,
        )

    # The policies see it: the drift policy names the workload whose cost left its plan, and
    # a budget set at the unedited total fails what the edit raised or left unpriced.
    workload = next(w for w in cost.workloads if w.name == after.workload)
    assert workload.plan_monthly_usd is not None
    plan = workload.plan_monthly_usd
    moved = wanted is None or abs(workload.total("expected") - plan) > 0.01 * plan + 0.005
    budget = unedited.total("expected") * 1.0001
    harness = PolicyHarness(
        config={**PROD, "gpu-budget": {"monthlyBudgetUsd": budget}},
        stack="prod",
        stack_config=stack.config,
    )
    found = harness.check(from_deployment(edited, "export"))
    drift = [f for f in found if f.policy == "plan-drift"]
    assert [f.message.split(":", 1)[0] for f in drift] == (
        [f"workload {workload.name}"] if moved else []
    ), (edit.what, [f.message for f in drift])
    over = wanted is None or cost.total("expected") > budget
    assert any(f.policy == "gpu-budget" for f in found) == over, edit.what

    # And the pull request's comment shows it: the cost report names the same drift, and its
    # diff against the unedited stack names the edited resource wherever its cost moved.
    head = CostReport("gen", "prod", cost)
    assert [d.workload for d in head.drift] == ([workload.name] if moved else [])
    report = head.as_dict()
    check_report(json.loads(json.dumps(report)), "head", "")  # its documented shape
    assert [d["workload"] for d in report["plan_drift"]] == [d.workload for d in head.drift]
    diff = diff_reports(CostReport("gen", "prod", unedited).as_dict(), report)
    changed = {c.name for c in diff.changed}
    moved_line = wanted is None or abs(wanted - (before.expected.monthly_usd or 0.0)) > 0.01
    assert (after.name in changed) == moved_line, (edit.what, diff.changed)


def test_the_covering_stacks_offer_every_kind_of_edit(stacks: Callable[[str], Stack]) -> None:
    """The property above meets every edit on the cloud it exists on."""
    offered: dict[str, set[str]] = {}
    for cloud in COVERING:
        stack = stacks(cloud)
        lines = {r.urn: r for r in price(stack, stack.deployment).resources}
        offered[cloud] = {
            make(30).what.split(" of ")[0].split(" set to ")[0] for make in edits(stack, lines)
        }
    assert offered["aws"] >= {
        "an ASG's minSize raised to its maxSize",
        "a scheduled action raising an ASG's min",
        "an ASG's scale-in policy deleted",
        "its expected-minutes deleted",
        "its expected-minutes",
    }
    assert offered["gcp"] >= {
        "a GCP autoscaler's minReplicas raised",
        "a GCP autoscaler made ONLY_SCALE_OUT",
        "its expected-minutes deleted",
        "its expected-minutes",
    }
    assert offered["azure"] >= {
        "an Azure ML cluster's minNodeCount raised",
        "an Azure ML idle time-out",
        "an autoscale setting's minimums raised",
        "an autoscale rule that decreases deleted",
        "its expected-minutes deleted",
        "its expected-minutes",
    }

"""Many environments: environments alike in what decides a placement share one search, and an
unplaced workload's reason is found without pricing what cannot be priced. Both are shortcuts;
these tests hold them to the long way: each environment planned alone by a fresh planner,
and each reason from the full evaluation ``--explain`` uses."""

from __future__ import annotations

import random

import pytest

from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.optimizer import Planner, workloads_in
from gpufleet.planner.spec_loader import parse_spec
from tests.helpers import ROOT

SPEC_BUILDER = ROOT / "benchmarks" / "plan_bench.py"


def _spec_text(workloads: int, seed: int) -> str:
    import importlib.util

    loaded = importlib.util.spec_from_file_location("plan_bench", SPEC_BUILDER)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    text: str = module.generate_spec(workloads, seed=seed)
    # Some under a price cap, so that some are unplaced for it.
    for i in range(0, workloads, 9):
        text = text.replace(f"  - name: w{i}\n", f"  - name: w{i}\n    max_price_per_hour: 3\n")
    rng = random.Random(seed)
    lines = []
    previous: dict[str, object] = {}
    for i in range(8):
        # Pairs of environments alike (the memo's case), the rest apart; names with profiles.
        name = ["dev", "staging", "prod"][i] if i < 3 else f"e{i}"
        settings: dict[str, object] = {
            "max_gpus_per_workload": rng.choice([8, 16, 64]),
            "replica_scale": rng.choice([0.5, 1]),
            "allow_on_demand": rng.choice(["true", "false"]),
            "max_commitment": rng.choice(["none", "1y", "3y"]),
        }
        if i % 2 and i > 3:
            settings = previous
        previous = settings
        body = ", ".join(f"{k}: {v}" for k, v in settings.items())
        lines.append(f"  {name}: {{{body}, monthly_budget_usd: {1000 + i}}}")
    return text.replace("environments:\n  prod: {}", "environments:\n" + "\n".join(lines))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_shared_searches_plan_as_each_environment_alone(seed: int) -> None:
    catalog = load_catalog()
    spec = parse_spec(_spec_text(120, seed), "spec.yaml", catalog)
    together = Planner(spec, catalog).plan()
    for env_plan in together.environments:
        alone = Planner(spec, catalog).plan([env_plan.environment]).environments[0]
        assert env_plan == alone


@pytest.mark.parametrize("seed", [4, 5])
def test_an_unplaced_reason_is_the_full_evaluations(seed: int) -> None:
    catalog = load_catalog()
    spec = parse_spec(_spec_text(120, seed), "spec.yaml", catalog)
    planner = Planner(spec, catalog)
    plan = planner.plan()
    seen = capped = 0
    for env_plan in plan.environments:
        by_name = {w.name: w for w in workloads_in(spec, env_plan.environment)}
        for unplaced in env_plan.unplaced:
            full = planner.evaluate(by_name[unplaced.name], env_plan.environment)
            assert not full.candidates
            assert unplaced.reason == full.reason
            seen += 1
            capped += "max_price_per_hour" in unplaced.reason
    assert seen and capped  # the specs leave some workloads unplaced, some for the cap


def test_environments_planned_in_forked_processes_plan_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gpufleet.planner import optimizer

    catalog = load_catalog()
    spec = parse_spec(_spec_text(60, 6), "spec.yaml", catalog)
    monkeypatch.setattr(optimizer, "_cores", lambda: 2)
    monkeypatch.setattr(optimizer, "PARALLEL_FROM_SEARCHES", 1)
    contexts: list[str] = []
    real = optimizer.multiprocessing.get_context

    def recorded(method: str) -> object:
        contexts.append(method)
        return real(method)

    monkeypatch.setattr(optimizer.multiprocessing, "get_context", recorded)
    forked = Planner(spec, catalog).plan()
    assert contexts == ["fork"]  # the forked path ran
    monkeypatch.setattr(optimizer, "PARALLEL_FROM_SEARCHES", 10**12)
    assert forked == Planner(spec, catalog).plan()
    assert [e.environment for e in forked.environments] == list(spec.environments)

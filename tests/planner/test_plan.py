"""The plan's documented JSON shape and budget totals."""

from __future__ import annotations

import json

import pytest

from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.optimizer import plan_spec
from gpufleet.planner.spec_loader import parse_spec
from gpufleet.pricing_models import PRICING_ORDER
from tests.helpers import ROOT, catalog_of, make_offer
from tests.planner.planning import TRAIN, plan_one

PLACEMENT_KEYS = {
    "spot_priced_in",
    "name",
    "kind",
    "managed",
    "cloud",
    "region",
    "zone",
    "instance_type",
    "gpu_name",
    "gpus_per_instance",
    "instances",
    "replicas_per_instance",
    "gpus_per_replica",
    "sharing",
    "pricing",
    "hours_model",
    "idle_hours",
    "hourly_usd",
    "hours_per_month",
    "monthly_usd",
    "baseline_monthly_usd",
    "savings_usd",
    "commitment_saving_usd",
    "burst",
}


TOTAL_KEYS = {
    "workloads",
    "gpus",
    "hourly_usd",
    "monthly_usd",
    "uncommitted_monthly_usd",
    "baseline_monthly_usd",
    "savings_usd",
    "savings_pct",
    "over_budget_usd",
}


def test_plan_json_shape() -> None:
    catalog = load_catalog()
    spec = parse_spec((ROOT / "examples" / "workloads.yaml").read_text(), "workloads.yaml", catalog)
    data = json.loads(json.dumps(plan_spec(spec, catalog).as_dict()))
    assert set(data) == {"project", "catalog_as_of", "assumptions", "environments"}
    assert [e["environment"] for e in data["environments"]] == ["dev", "staging", "prod"]
    for env in data["environments"]:
        assert set(env) == {"environment", "monthly_budget_usd", "workloads", "unplaced", "totals"}
        assert set(env["totals"]) == TOTAL_KEYS
        for w in env["workloads"]:
            assert set(w) == PLACEMENT_KEYS
            assert w["pricing"] in PRICING_ORDER
        totals = env["totals"]
        assert totals["monthly_usd"] == pytest.approx(
            sum(w["monthly_usd"] for w in env["workloads"]), abs=0.05
        )


def test_budget() -> None:
    catalog = catalog_of(make_offer(on_demand_hourly=1.0))
    env = plan_one(TRAIN, catalog, environments="environments:\n  prod: {monthly_budget_usd: 60}\n")
    assert env.over_budget_usd == pytest.approx(40.0)
    env = plan_one(
        TRAIN, catalog, environments="environments:\n  prod: {monthly_budget_usd: 600}\n"
    )
    assert env.over_budget_usd is None

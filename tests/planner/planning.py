"""Planning a spec text against a hand-made catalog, for the planner tests: one environment's
plan, its one placement, or the reason its one workload cannot be placed; and the workloads
those tests start from."""

from __future__ import annotations

from gpufleet.planner.catalog import Catalog
from gpufleet.planner.optimizer import plan_spec
from gpufleet.planner.plan import EnvironmentPlan, Placement
from gpufleet.planner.spec_loader import parse_spec
from tests.helpers import make_offer, spec_text

H100_EFA = dict(instance_type="p5.48xlarge", gpu_name="H100", gpu_count=8, gpu_memory_gib=80)


def plan_one(
    body: str, catalog: Catalog, environments: str = "environments:\n  prod: {}\n"
) -> EnvironmentPlan:
    spec = parse_spec(spec_text(body, environments), "spec.yaml", catalog)
    plan = plan_spec(spec, catalog)
    (env,) = plan.environments
    return env


def placement(body: str, catalog: Catalog, **kw: str) -> Placement:
    env = plan_one(body, catalog, **kw)
    assert not env.unplaced, env.unplaced
    (p,) = env.placements
    return p


def reason(body: str, catalog: Catalog, **kw: str) -> str:
    env = plan_one(body, catalog, **kw)
    assert not env.placements
    (u,) = env.unplaced
    return u.reason


TRAIN = """
workloads:
  - name: job
    kind: training
    gpu: {name: L4}
    hours_per_month: 100
"""


SERVE = """
workloads:
  - name: serve
    kind: inference
    gpu: {name: L4}
    always_on: true
    replicas: {min: 2, max: 5}
    hours_per_month: 100
"""


BY_MEMORY = TRAIN.replace("gpu: {name: L4}", "gpu: {min_memory_gib: 20}")


L4_OR_A10G = (
    make_offer(instance_type="g6.xlarge", gpu_name="L4", on_demand_hourly=1.0),
    make_offer(instance_type="g5.xlarge", gpu_name="A10G", on_demand_hourly=1.2),
)

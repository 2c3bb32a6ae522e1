"""Packing replicas and batch workers onto multi-GPU instances: the planner prices each offer
with as many as fit (``planner/packing.py``), so one machine per replica and fewer large
machines compete on cost; packing never costs more than one per instance, never gives a
replica fewer GPUs than it asked for, and honours ``max_replicas_per_instance``."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.gpu_need import resolve_gpu_need
from gpufleet.planner.optimizer import Planner
from gpufleet.planner.spec_loader import SpecError, parse_spec
from gpufleet.workload_kinds import KINDS
from tests.helpers import catalog_of, make_offer, spec_text
from tests.planner.planning import placement
from tests.random_specs import AUTO_GPUS

REAL = load_catalog()

FORTY = """
defaults: {clouds: [aws]}
workloads:
  - name: serve
    kind: inference
    gpu: {name: A100, count: 1}
    always_on: true
    replicas: {min: 40, max: 40}
"""


def test_forty_one_gpu_replicas_share_five_eight_gpu_machines() -> None:
    """The issue's case: on AWS an A100 comes only in 8-GPU p4d machines; one replica a
    machine was 40 of them, 320 GPUs for 40."""
    spec = parse_spec(spec_text(FORTY), "spec.yaml", REAL)
    (p,) = Planner(spec, REAL).plan_environment("prod").placements
    assert (p.instance_type, p.instances, p.replicas_per_instance) == ("p4d.24xlarge", 5, 8)
    assert (p.gpus_per_replica, p.total_gpus) == (1, 40)
    one_each = parse_spec(
        spec_text(FORTY + "    max_replicas_per_instance: 1\n"), "spec.yaml", REAL
    )
    (q,) = Planner(one_each, REAL).plan_environment("prod").placements
    assert (q.instances, q.replicas_per_instance, q.total_gpus) == (40, 1, 320)
    assert p.monthly_usd == pytest.approx(q.monthly_usd / 8)


SMALL_AND_LARGE = (
    make_offer(instance_type="g6.xlarge", gpu_count=1, on_demand_hourly=1.0, spot_hourly=None),
    make_offer(instance_type="g6.12xlarge", gpu_count=4, on_demand_hourly=3.5, spot_hourly=None),
)
SERVE_FIVE = """
workloads:
  - name: serve
    kind: inference
    gpu: {name: L4}
    always_on: true
    replicas: {min: 5, max: 5}
"""


def test_cost_decides_between_small_machines_and_packed_large_ones() -> None:
    catalog = catalog_of(*SMALL_AND_LARGE)
    # Five replicas: two 4-GPU machines (7.0 an hour, three GPUs idle) lose to five 1-GPU
    # machines (5.0); four replicas fill one 4-GPU machine (3.5) and beat four small (4.0).
    five = placement(SERVE_FIVE.replace("max: 5", "max: 5"), catalog)
    assert (five.instance_type, five.instances, five.replicas_per_instance) == ("g6.xlarge", 5, 1)
    four = placement(SERVE_FIVE.replace("5", "4"), catalog)
    assert (four.instance_type, four.instances, four.replicas_per_instance) == ("g6.12xlarge", 1, 4)
    # A failure-domain limit: at most two replicas a machine, so two 4-GPU machines (7.0).
    capped = placement(SERVE_FIVE.replace("5", "4") + "    max_replicas_per_instance: 2\n", catalog)
    assert (capped.instance_type, capped.instances) == ("g6.xlarge", 4)


def test_a_burst_packs_onto_what_the_base_leaves() -> None:
    catalog = catalog_of(SMALL_AND_LARGE[1])
    body = SERVE_FIVE.replace("{min: 5, max: 5}", "{min: 3, max: 10}") + (
        "    hours_per_month: 100\n"
    )
    p = placement(body, catalog)
    # Three base replicas on one machine; ten at peak on three: the burst is two machines.
    assert (p.instances, p.replicas_per_instance) == (1, 4)
    assert p.burst is not None and p.burst.instances == 2


def test_workers_of_a_batch_job_packed_on_one_machine_need_no_cluster_network() -> None:
    # Four T4s and no InfiniBand.
    big = make_offer(
        cloud="azure",
        region="eastus",
        zone="",
        instance_type="Standard_NC64as_T4_v3",
        gpu_name="T4",
        gpu_count=4,
        gpu_memory_gib=16,
    )
    body = """
workloads:
  - name: sweep
    kind: batch
    gpu: {name: T4}
    nodes: 2
    hours_per_month: 10
"""
    p = placement(body, catalog_of(big))
    assert (p.instances, p.replicas_per_instance, p.gpus_per_replica) == (1, 2, 2)
    # Training keeps its layout: two nodes need the cluster network the size lacks.
    training = body.replace("kind: batch", "kind: training").replace("nodes: 4", "nodes: 2")
    env = Planner(parse_spec(spec_text(training), "s.yaml", catalog_of(big)), catalog_of(big))
    (u,) = env.plan_environment("prod").unplaced
    assert "cluster networking" in u.reason


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ("    kind: training\n", "workloads[0].max_replicas_per_instance"),
        ("    kind: batch\n    managed: azureml\n", "workloads[0].max_replicas_per_instance"),
    ],
)
def test_max_replicas_per_instance_only_where_units_pack(extra: str, field: str) -> None:
    body = (
        "defaults: {clouds: [azure]}\nworkloads:\n  - name: w\n"
        + extra
        + "    gpu: {name: T4}\n    max_replicas_per_instance: 2\n"
    )
    text = spec_text(body)
    with pytest.raises(SpecError) as caught:
        parse_spec(text, "spec.yaml", REAL)
    (problem,) = caught.value.problems
    line = text.splitlines().index("    max_replicas_per_instance: 2") + 1
    assert (problem.field, problem.line) == (field, line)
    assert "serving replicas and batch workers" in problem.message


units = st.fixed_dictionaries(
    {
        "kind": st.sampled_from([k for k in KINDS if k != "training"]),
        "gpu": st.sampled_from(AUTO_GPUS),
        "count": st.sampled_from([1, 2, 4]),
        "units": st.integers(1, 40),
        "base": st.integers(0, 40),
        "interruptible": st.booleans(),
        "hours": st.sampled_from([50, 300, 730]),
        "cap": st.sampled_from([None, 2, 3]),
        "max_gpus": st.sampled_from([None, 16, 64]),
    }
)


def _packing_spec(w: dict[str, Any], one_each: bool) -> str:
    gpu = f"{{name: {w['gpu']}, count: {w['count']}}}"
    lines = [f"  - name: w\n    kind: {w['kind']}\n    gpu: {gpu}"]
    lines.append(f"    interruptible: {str(w['interruptible']).lower()}")
    lines.append(f"    hours_per_month: {w['hours']}")
    if w["kind"] == "inference":
        base = min(w["base"], w["units"])
        lines.append(f"    replicas: {{min: {base}, max: {w['units']}}}")
        lines.append(f"    always_on: {str(base > 0).lower()}")
    else:
        lines.append(f"    nodes: {w['units']}")
    cap = 1 if one_each else w["cap"]
    if cap is not None:
        lines.append(f"    max_replicas_per_instance: {cap}")
    limits = "{}" if w["max_gpus"] is None else f"{{max_gpus_per_workload: {w['max_gpus']}}}"
    return spec_text("workloads:\n" + "\n".join(lines) + "\n", f"environments:\n  prod: {limits}\n")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(units)
def test_packing_never_costs_more_than_one_each_nor_overfills_a_gpu(w: dict[str, Any]) -> None:
    try:
        packed_spec = parse_spec(_packing_spec(w, one_each=False), "spec.yaml", REAL)
    except SpecError:
        return  # a spec the loader refuses (always_on without replicas) says so elsewhere
    note(_packing_spec(w, one_each=False))
    one_spec = parse_spec(_packing_spec(w, one_each=True), "spec.yaml", REAL)
    packed = Planner(packed_spec, REAL).plan_environment("prod")
    one_each = Planner(one_spec, REAL).plan_environment("prod")
    # Whatever places one replica a machine places packed, for no more.
    if one_each.placements:
        assert packed.placements, packed.unplaced
        assert packed.monthly_usd <= one_each.monthly_usd * (1 + 1e-9) + 1e-9
    for p in packed.placements:
        (workload,) = packed_spec.workloads
        need = {
            o.gpu_name: o.min_per_node
            for o in resolve_gpu_need(workload, packed_spec.environments["prod"]).options
        }
        # Each replica gets at least the GPUs it asked for, and no GPU is given twice (nothing
        # here shares a GPU).
        each = p.gpus_per_replica
        assert each is not None and each >= need[p.offer.gpu_name]
        assert p.replicas_per_instance * each <= p.offer.gpu_count
        assert w["cap"] is None or p.replicas_per_instance <= w["cap"]
        # Enough slots for every replica at peak, and no machine beyond what they fill.
        slots = p.replicas_per_instance * (p.instances + (p.burst.instances if p.burst else 0))
        assert slots >= w["units"] > slots - p.replicas_per_instance

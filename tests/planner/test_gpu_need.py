"""Which GPUs, and how many per node, a workload can use: by name, by memory, by model size; the
environment's allowed GPUs."""

from __future__ import annotations

from tests.helpers import catalog_of, make_offer
from tests.planner.planning import TRAIN, placement, reason


def test_environment_allowed_gpus() -> None:
    envs = "environments:\n  dev: {allowed_gpus: [a100]}\n"
    assert reason(TRAIN, catalog_of(make_offer()), environments=envs) == (
        "the environment allows only A100"
    )


def test_gpu_count_per_instance() -> None:
    catalog = catalog_of(
        make_offer(gpu_count=1),
        make_offer(instance_type="g6.12xlarge", gpu_count=4, on_demand_hourly=4.6),
    )
    p = placement(TRAIN.replace("{name: L4}", "{name: L4, count: 2}"), catalog)
    # No 2-GPU size: the smallest instance with at least 2 L4s.
    assert (p.instance_type, p.offer.gpu_count) == ("g6.12xlarge", 4)
    assert reason(TRAIN.replace("{name: L4}", "{name: L4, count: 8}"), catalog) == (
        "no offer with 8x L4 per instance in the catalog"
    )


def test_by_memory_picks_only_general_purpose_gpus() -> None:
    catalog = catalog_of(
        make_offer(
            instance_type="inf2.xlarge",
            gpu_name="Inferentia2",
            gpu_memory_gib=32,
            on_demand_hourly=0.1,
        ),
        make_offer(
            instance_type="g6e.xlarge", gpu_name="L40S", gpu_memory_gib=48, on_demand_hourly=1.8
        ),
        make_offer(
            instance_type="g6.xlarge", gpu_name="L4", gpu_memory_gib=24, on_demand_hourly=0.8
        ),
    )
    p = placement(TRAIN.replace("{name: L4}", "{min_memory_gib: 30}"), catalog)
    assert p.offer.gpu_name == "L40S"
    # Named explicitly, Inferentia2 is fine.
    assert (
        placement(TRAIN.replace("{name: L4}", "{name: inferentia2}"), catalog).offer.gpu_name
        == "Inferentia2"
    )
    assert reason(TRAIN.replace("{name: L4}", "{min_memory_gib: 500}"), catalog) == (
        "no GPU has 500 GiB; the largest is B200 with 180 GiB"
    )


def test_by_model_sizes_gpus_and_respects_bf16() -> None:
    catalog = catalog_of(
        make_offer(
            instance_type="g4dn.xlarge", gpu_name="T4", gpu_memory_gib=16, on_demand_hourly=0.5
        ),
        make_offer(
            instance_type="g6.xlarge", gpu_name="L4", gpu_memory_gib=24, on_demand_hourly=0.8
        ),
        make_offer(
            instance_type="p5.48xlarge",
            gpu_name="H100",
            gpu_count=8,
            gpu_memory_gib=80,
            on_demand_hourly=98,
        ),
    )
    qlora = TRAIN.replace("{name: L4}", "{params_billions: 7, method: qlora}")
    # T4 is cheaper and has the memory, but no bf16.
    assert placement(qlora, catalog).offer.gpu_name == "L4"
    assert (
        placement(
            qlora.replace("method: qlora", "method: qlora, precision: fp16"), catalog
        ).offer.gpu_name
        == "T4"
    )
    full = TRAIN.replace("{name: L4}", "{params_billions: 7, method: full}")
    p = placement(full, catalog)
    assert (p.offer.gpu_name, p.offer.gpu_count) == ("H100", 8)
    huge = TRAIN.replace("{name: L4}", "{params_billions: 70, method: full}")
    assert "raise nodes" in reason(huge, catalog)
    # Across three nodes, 17 H100s fit in 6 per node: an 8-GPU instance per node.
    p = placement(huge + "    nodes: 3\n", catalog)
    assert (p.offer.gpu_name, p.instances) == ("H100", 3)

"""What narrows a workload's offers before pricing: mirrored environments, clouds and regions,
cluster networking, the environment's GPU cap and workload list, managed services."""

from __future__ import annotations

import pytest

from gpufleet.planner.optimizer import plan_spec
from gpufleet.planner.spec_loader import parse_spec
from tests.helpers import catalog_of, make_offer, spec_text
from tests.planner.planning import BY_MEMORY, H100_EFA, L4_OR_A10G, TRAIN, placement, reason


@pytest.mark.parametrize(
    ("staging", "expected"),
    [
        ("{}", "g5.xlarge"),  # prod's type, not the cheaper g6.xlarge
        ("{allowed_gpus: [L4]}", "g6.xlarge"),  # prod's type is not allowed: plan freely
        ("{mirror: null}", "g6.xlarge"),
    ],
)
def test_staging_mirrors_the_instance_type_prod_chose(staging: str, expected: str) -> None:
    catalog = catalog_of(*L4_OR_A10G)
    envs = f"environments:\n  staging: {staging}\n  prod: {{allowed_gpus: [A10G]}}\n"
    spec = parse_spec(spec_text(BY_MEMORY, envs), "spec.yaml", catalog)
    staging_plan, prod_plan = plan_spec(spec, catalog).environments
    assert prod_plan.placements[0].instance_type == "g5.xlarge"
    assert staging_plan.placements[0].instance_type == expected


def test_regions_and_clouds() -> None:
    catalog = catalog_of(
        make_offer(region="us-east-1", zone="use1-az1", on_demand_hourly=1.0),
        make_offer(region="us-west-2", zone="usw2-az1", on_demand_hourly=2.0),
        make_offer(
            cloud="gcp",
            region="us-central1",
            zone="us-central1-a",
            instance_type="g2-standard-4",
            on_demand_hourly=0.5,
        ),
    )
    assert placement(TRAIN, catalog).offer.cloud == "gcp"
    assert placement(TRAIN + "    clouds: [aws]\n", catalog).offer.region == "us-east-1"
    body = TRAIN + "    clouds: [aws]\n    regions: {aws: [us-west-2]}\n"
    assert placement(body, catalog).offer.region == "us-west-2"
    assert (
        placement(
            "defaults:\n  regions: {aws: [us-west-2], gcp: [us-central1]}\n"
            + TRAIN
            + "    clouds: [aws]\n",
            catalog,
        ).offer.region
        == "us-west-2"
    )
    assert reason(TRAIN + "    clouds: [azure]\n", catalog) == "no 1x L4 offer on azure"


def test_multi_node_needs_cluster_networking() -> None:
    plain = make_offer(instance_type="g6.xlarge", on_demand_hourly=1.0)
    efa = make_offer(instance_type="g6.8xlarge", on_demand_hourly=2.0)
    body = TRAIN + "    nodes: 3\n"
    p = placement(body, catalog_of(plain, efa))
    assert (p.instance_type, p.instances) == ("g6.8xlarge", 3)
    assert reason(body, catalog_of(plain)) == (
        "no 1x L4 offer with cluster networking (EFA, A2/A3, InfiniBand) for a 3-node job in "
        "allowed regions"
    )


def test_environment_gpu_cap() -> None:
    catalog = catalog_of(make_offer(**H100_EFA))
    envs = "environments:\n  dev: {max_gpus_per_workload: 8}\n"
    body = TRAIN.replace("{name: L4}", "{name: H100, count: 8}") + "    nodes: 2\n"
    assert reason(body, catalog, environments=envs) == (
        "needs at least 16 GPUs, over dev's max_gpus_per_workload 8"
    )


def test_workload_environments_filter() -> None:
    catalog = catalog_of(make_offer())
    envs = "environments:\n  dev: {}\n  prod: {}\n"
    spec = parse_spec(spec_text(TRAIN + "    environments: [prod]\n", envs), "s.yaml", catalog)
    plan = plan_spec(spec, catalog)
    assert [len(e.placements) for e in plan.environments] == [0, 1]


def test_azureml_runs_on_azure_only() -> None:
    catalog = catalog_of(
        make_offer(on_demand_hourly=0.1),
        make_offer(
            cloud="azure",
            region="eastus",
            zone="",
            instance_type="Standard_NC4as_T4_v3",
            gpu_name="T4",
            gpu_memory_gib=16,
            on_demand_hourly=0.5,
            spot_hourly=0.06,
        ),
    )
    body = (
        TRAIN.replace("{name: L4}", "{min_memory_gib: 16}").replace("training", "batch")
        + "    managed: azureml\n    interruptible: true\n"
    )
    p = placement(body, catalog)
    assert (p.offer.cloud, p.pricing) == ("azure", "spot")
    assert p.hourly_usd == pytest.approx(0.06 * 1.15)

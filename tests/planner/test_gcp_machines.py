"""GCP machine types and their GPUs: built-in and attached, pairings GCP refuses."""

from __future__ import annotations

import re

import pytest

from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.gcp_machines import (
    ACCELERATOR_TYPES,
    built_in_gpus,
    commitment_type,
    machine_gpus,
    takes_attached_gpus,
)
from gpufleet.planner.gpus import normalize_gpu_name


def test_machine_gpu_pairing() -> None:
    a3 = machine_gpus("a3-highgpu-8g")
    assert (a3.gpu_name, a3.count, a3.attached, a3.accelerator_type) == (
        "H100",
        8,
        False,
        "nvidia-h100-80gb",
    )
    assert machine_gpus("a3-megagpu-8g").accelerator_type == "nvidia-h100-mega-80gb"
    assert machine_gpus("g2-standard-24").count == 2
    n1 = machine_gpus("n1-standard-8", "v100", 1)
    assert (n1.gpu_name, n1.count, n1.attached, n1.accelerator_type) == (
        "V100",
        1,
        True,
        "nvidia-tesla-v100",
    )


@pytest.mark.parametrize(
    ("machine", "gpu", "count", "message"),
    [
        ("a2-highgpu-1g", "A100", 1, "carries 1 A100 already"),
        ("n1-standard-8", None, None, "needs gpu and gpu_count"),
        ("n1-standard-8", "L4", 1, "N1 machines take T4, V100, P100, P4, not L4"),
        ("n1-standard-8", "T4", 3, "T4 attaches in counts of [1, 2, 4], not 3"),
        ("n1-standard-16", "V100", 1, "has 16 vCPUs; with 1 V100 GCP allows at most 12"),
        ("e2-standard-8", "T4", 1, "takes no GPUs"),
    ],
)
def test_machine_gpu_pairing_rejects(
    machine: str, gpu: str | None, count: int | None, message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        machine_gpus(machine, gpu, count)


GCP_OFFERS = [o for o in load_catalog().offers if o.cloud == "gcp"]


def test_every_gcp_gpu_of_the_catalog_has_its_accelerator_name() -> None:
    # Components name a GPU to the Compute API by it (a reservation's, an N1 host's).
    missing = sorted({o.gpu_name for o in GCP_OFFERS} - set(ACCELERATOR_TYPES))
    assert not missing, f"add {missing} to ACCELERATOR_TYPES in planner/gcp_machines.py"


def test_every_gcp_machine_of_the_catalog_has_a_commitment_type() -> None:
    # The plan may reserve any of them, and a stack may buy the commitment that pays for it.
    missing = sorted(
        {o.instance_type for o in GCP_OFFERS if commitment_type(o.instance_type) is None}
    )
    assert not missing, (
        f"no commitment type for {missing}: add its series to COMMITMENT_TYPES in "
        "planner/gcp_machines.py (the Compute API's Commitment.Type)"
    )


def test_machines_with_built_in_gpus_carry_what_the_catalog_says() -> None:
    for offer in GCP_OFFERS:
        if takes_attached_gpus(offer.instance_type):
            continue
        built_in = built_in_gpus(offer.instance_type)
        assert built_in is not None, (
            f"{offer.instance_type}: add its series to BUILT_IN_FAMILIES (or a count table like "
            "G2_L4_COUNT) in planner/gcp_machines.py"
        )
        assert (normalize_gpu_name(built_in[0]), built_in[1]) == (
            offer.gpu_name,
            offer.gpu_count,
        ), offer.instance_type

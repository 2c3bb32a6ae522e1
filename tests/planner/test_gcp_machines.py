"""GCP machine types and their GPUs: built-in and attached, pairings GCP refuses."""

from __future__ import annotations

import re

import pytest

from gpufleet.planner.gcp_machines import machine_gpus


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

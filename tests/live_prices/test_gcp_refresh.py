"""``gpufleet catalog refresh --cloud gcp`` with the real SDKs: google-cloud-compute's aggregated
machine and accelerator type lists from a local Compute Engine API, google-cloud-billing's SKUs
from a local Cloud Billing Catalog, both checking the service account's signed tokens. The
catalog equals what the documented price model gives from the fakes' data; a bad or partial
answer writes nothing."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from gpufleet.cli.main import main
from gpufleet.live_prices.gcp_prices import BILLING_ENDPOINT_OVERRIDE
from gpufleet.planner.catalog import format_number
from tests.live_prices.gcp_billing_catalog import BillingCatalogApi, sku
from tests.runs.gcp_compute_server import ComputeApi
from tests.runs.local_https import LocalServer
from tests.runs.stack_files import GCP_PROJECT

REGION = "us-central1"


def machine(name: str, vcpus: int, gib: float, accelerator: str | None, count: int = 0) -> dict:
    found: dict[str, Any] = {
        "kind": "compute#machineType",
        "name": name,
        "guestCpus": vcpus,
        "memoryMb": int(gib * 1024),
    }
    if accelerator is not None:
        found["accelerators"] = [
            {"guestAcceleratorType": accelerator, "guestAcceleratorCount": count}
        ]
    return found


def accelerator(name: str, most: int) -> dict[str, Any]:
    return {"kind": "compute#acceleratorType", "name": name, "maximumCardsPerInstance": most}


MACHINES = {
    "us-central1-a": [
        machine("a2-highgpu-1g", 12, 85, "nvidia-tesla-a100", 1),
        machine("g2-standard-4", 4, 16, "nvidia-l4", 1),
        machine("a3-megagpu-8g", 208, 1872, "nvidia-h100-mega-80gb", 8),
        machine("n1-standard-8", 8, 30, None),
        machine("x9-newgpu-1g", 8, 64, "nvidia-x9000", 1),
    ],
    "us-central1-b": [machine("g2-standard-4", 4, 16, "nvidia-l4", 1)],
    "europe-west4-a": [machine("a2-highgpu-1g", 12, 85, "nvidia-tesla-a100", 1)],
}
ACCELERATORS = {
    "us-central1-a": [accelerator("nvidia-tesla-t4", 4), accelerator("nvidia-l4", 8)],
    "us-central1-b": [accelerator("nvidia-tesla-v100", 8)],
}
# Unit prices: (on-demand, spot or None); memory per GiB-hour.
PARTS = {
    "A2 Instance Core": (0.031611, 0.0095),
    "A2 Instance Ram": (0.004237, 0.0013),
    "G2 Instance Core": (0.0248, 0.0074),
    "G2 Instance Ram": (0.0029, 0.0009),
    "A3 Instance Core": (0.0305, None),
    "A3 Instance Ram": (0.0041, None),
    "N1 Predefined Instance Core": (0.031611, 0.006655),
    "N1 Predefined Instance Ram": (0.004237, 0.000892),
    "Nvidia Tesla A100 GPU": (2.933908, 0.88),
    "Nvidia L4 GPU": (0.56, 0.168),
    "Nvidia H100 80GB Mega GPU": (11.8, None),
    "Nvidia Tesla T4 GPU": (0.35, 0.07),
}


def _spot_description(part: str) -> str:
    """As the Billing Catalog words spot SKUs: a GPU "attached to Spot Preemptible VMs", a
    VM's cores and memory "Spot Preemptible ..."."""
    if part.endswith(" GPU"):
        return f"{part} attached to Spot Preemptible VMs running in Americas"
    return f"Spot Preemptible {part} running in Americas"


def skus() -> list[dict[str, Any]]:
    found = []
    for part, (price, spot) in PARTS.items():
        unit = "GiBy.h" if part.endswith("Ram") else "h"
        found.append(sku(f"{part} running in Americas", [REGION, "us-east4"], price, unit=unit))
        if spot is not None:
            found.append(sku(_spot_description(part), [REGION], spot, unit=unit))
    # SKUs a GPU VM is not billed by.
    found.append(sku("N1 Custom Instance Core running in Americas", [REGION], 0.033))
    found.append(sku("Storage PD Capacity", [REGION], 0.04, unit="GiBy.mo"))
    commit = sku("Commitment v1: A2 Cpu in Americas for 1 Year", [REGION], 0.02)
    commit["category"]["usageType"] = "Commit1Yr"
    found.append(commit)
    return found


def expected(
    zone: str, name: str, vcpus: int, memory: int, gpu_sku: str, gpu: str, count: int
) -> dict[str, str]:
    """The row the price model gives: vCPUs x core + GiB x memory + GPUs x GPU, per usage."""
    series = name.split("-", 1)[0].upper()
    core = "N1 Predefined Instance Core" if series == "N1" else f"{series} Instance Core"
    ram = core.replace("Core", "Ram")
    totals: list[float | None] = []
    for usage in (0, 1):
        prices = [PARTS[core][usage], PARTS[ram][usage], PARTS[gpu_sku][usage]]
        if any(p is None for p in prices):
            totals.append(None)
            continue
        per_core, per_gib, per_gpu = (p or 0.0 for p in prices)
        totals.append(round(vcpus * per_core + memory * per_gib + count * per_gpu, 6))
    memory_per_gpu = {"A100": 40, "L4": 24, "H100": 80, "T4": 16}[gpu]
    return {
        "zone": zone,
        "instance_type": name,
        "gpu_name": gpu,
        "gpu_count": str(count),
        "gpu_memory_gib": str(memory_per_gpu),
        "vcpus": format_number(float(vcpus)),
        "memory_gib": format_number(float(memory)),
        "on_demand_hourly": format_number(totals[0]),
        "spot_hourly": format_number(totals[1]),
    }


A = "us-central1-a"
EXPECTED = sorted(
    [
        expected(A, "a2-highgpu-1g", 12, 85, "Nvidia Tesla A100 GPU", "A100", 1),
        expected(A, "g2-standard-4", 4, 16, "Nvidia L4 GPU", "L4", 1),
        expected("us-central1-b", "g2-standard-4", 4, 16, "Nvidia L4 GPU", "L4", 1),
        expected(A, "a3-megagpu-8g", 208, 1872, "Nvidia H100 80GB Mega GPU", "H100", 8),
        # T4 on N1 hosts of 8 vCPUs and 30 GiB a GPU, in the counts an N1 takes (up to 4).
        *(
            expected(A, f"n1-standard-{8 * n}", 8 * n, 30 * n, "Nvidia Tesla T4 GPU", "T4", n)
            for n in (1, 2, 4)
        ),
    ],
    key=lambda r: (r["zone"], r["instance_type"]),
)


@pytest.fixture
def gcp(
    compute: ComputeApi, certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> Iterator[BillingCatalogApi]:
    compute.state.machine_types = MACHINES
    compute.state.accelerator_types = ACCELERATORS
    billing = BillingCatalogApi(compute._authenticated, skus(), page_size=4)
    server = LocalServer(billing.route, certificate)
    monkeypatch.setenv(BILLING_ENDPOINT_OVERRIDE, f"{server.url}/")
    monkeypatch.delenv("GPUFLEET_CATALOG", raising=False)
    yield billing
    server.close()


def refresh(*args: str) -> Result:
    return CliRunner().invoke(
        main,
        [
            "catalog",
            "refresh",
            "--cloud",
            "gcp",
            "--region",
            f"gcp:{REGION}",
            "--gcp-project",
            GCP_PROJECT,
            "--accept-moves",
            *args,
        ],
    )


def gcp_rows(path: Path) -> list[dict[str, str]]:
    keep = ("zone", "instance_type", "gpu_name", "gpu_count", "gpu_memory_gib", "vcpus")
    keep += ("memory_gib", "on_demand_hourly", "spot_hourly")
    with path.open(newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if (r["cloud"], r["region"]) == ("gcp", REGION)]
    for r in rows:
        assert r["source"] == "gcp:cloudbilling.skus+compute.machineTypes"
    return sorted(
        ({k: r[k] for k in keep} for r in rows), key=lambda r: (r["zone"], r["instance_type"])
    )


def test_a_refresh_writes_the_catalog_the_apis_describe(
    gcp: BillingCatalogApi, tmp_path: Path
) -> None:
    out = tmp_path / "catalog.csv"
    result = refresh("--output", str(out), "--format", "json")
    assert result.exit_code == 0, result.output
    (cloud,) = json.loads(result.output)["clouds"]
    assert cloud["price_rows"] == len(skus())
    assert len(gcp.calls) == -(-len(skus()) // 4)  # every page, four SKUs each
    assert gcp_rows(out) == EXPECTED
    skipped = "\n".join(cloud["skipped"])
    assert "x9-newgpu-1g: accelerator 'nvidia-x9000' is not one gpufleet knows" in skipped
    assert "us-central1-b n1-standard-8: a part has no on-demand price" in skipped  # V100


def test_throttling_is_retried(gcp: BillingCatalogApi, tmp_path: Path) -> None:
    gcp.throttle_first = 2
    out = tmp_path / "catalog.csv"
    result = refresh("--output", str(out))
    assert result.exit_code == 0, result.output
    assert gcp_rows(out) == EXPECTED


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        ("a page then errors", "cloudbilling.services.skus.list: 500"),
        ("a unit nobody documented", "usage unit 'furlong'"),
        ("a denied permission", "compute.machineTypes.aggregatedList: 403"),
        ("no project", "--gcp-project"),
    ],
)
def test_a_bad_or_partial_answer_leaves_the_old_catalog_untouched(
    gcp: BillingCatalogApi,
    compute: ComputeApi,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fault: str,
    said: str,
) -> None:
    args: list[str] = []
    if fault == "a page then errors":
        gcp.fail_after_pages = 2
    elif fault == "a unit nobody documented":
        gcp.skus.insert(
            1, sku("A2 Instance Core running in Americas", [REGION], 0.03, unit="furlong")
        )
    elif fault == "a denied permission":
        compute.state.denied.add("compute.machineTypes.list")
    else:
        monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)
        args = ["--gcp-project", ""]
    out = tmp_path / "catalog.csv"
    out.write_text("kept\n")
    result = refresh("--output", str(out), *args)
    assert result.exit_code == 1, result.output
    assert said in result.output
    assert "Traceback" not in result.output
    assert out.read_text() == "kept\n"

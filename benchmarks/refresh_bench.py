"""Whole-process wall time and peak memory of ``gpufleet catalog refresh`` of all three clouds
against the local fakes the suite tests it with, and ``gpufleet plan`` with the catalog it
writes against the shipped one.

Goals (issue 32, on a 2-core machine): a refresh reading at least 50,000 price rows (Price List
products, retail price meters, billing SKUs) in under 60 s and 500 MB; plan of the 1,000-
workload spec of ``plan_bench`` with the refreshed catalog within 10% of the shipped one's time.

The fakes serve from this process (threads), so their work is on the same two cores as the
refresh's: the figure is pessimistic. Price rows are the documented shapes with prices drawn
at random around realistic figures (moto's flat spot price replaced, ``realistic_spot``); the
machines are moto's and the shipped catalog's.

Usage: .venv/bin/python benchmarks/refresh_bench.py [--runs 5] [--json]
Exits 1 if a goal is missed; it is not part of ``make test``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the fakes live with the tests

import moto  # noqa: E402
from moto.server import ThreadedMotoServer  # noqa: E402

from benchmarks.plan_bench import generate_spec  # noqa: E402
from gpufleet.planner.catalog import load_catalog  # noqa: E402
from tests.live_prices.aws_price_list import PriceListApi, product  # noqa: E402
from tests.live_prices.azure_retail_prices import RetailPricesApi, meter  # noqa: E402
from tests.live_prices.gcp_billing_catalog import BillingCatalogApi, sku  # noqa: E402
from tests.local_clouds import local_arm, local_compute  # noqa: E402
from tests.runs.local_https import LocalServer, self_signed  # noqa: E402
from tests.runs.stack_files import AZURE_SUBSCRIPTION, GCP_PROJECT  # noqa: E402

GPUFLEET = Path(sys.executable).parent / "gpufleet"
AWS_REGIONS = ["us-east-1", "us-west-2", "eu-west-1", "ap-northeast-1"]
AZURE_REGIONS = ["eastus", "westus3", "westeurope", "southcentralus"]
GCP_REGIONS = ["us-central1", "us-east4", "europe-west4"]
GOAL_SECONDS, GOAL_MB, GOAL_ROWS, PLAN_TOLERANCE = 60.0, 500.0, 50_000, 0.10


def aws_products(rng: random.Random, on_demand: dict[str, float]) -> list[tuple[str, str]]:
    """Every moto GPU type in each region (its price put in ``on_demand``), and filler
    machines to about 4,500 a region."""
    path = Path(moto.__file__).parent / "ec2" / "resources" / "instance_types.json.gz"
    with gzip.open(path, "rt") as handle:
        types = json.load(handle)
    gpus = [t for t, info in types.items() if info.get("GpuInfo")]
    found = []
    for region in AWS_REGIONS:
        for itype in gpus:
            count = types[itype]["GpuInfo"]["Gpus"][0]["Count"]
            price = on_demand.setdefault(itype, round(rng.uniform(0.8, 4.5) * count, 4))
            found.append((region, product(itype, region, price)))
        for n in range(4_500):
            found.append(
                (region, product(f"m{n % 9}x.{n}xlarge", region, round(0.05 * (n % 40 + 1), 4)))
            )
    return found


def realistic_spot(rng: random.Random, on_demand: dict[str, float]) -> None:
    """moto answers every spot price history query with $0.00001, which would make every AWS
    spot offer tie (and the planner price each one): serve 20-45% of each type's on-demand
    price instead, varying by zone, in the shape moto's own answer has."""
    from moto.core.responses import ActionResult
    from moto.ec2.responses.spot_instances import SpotInstances

    def describe_spot_price_history(self: SpotInstances) -> ActionResult:
        prices = self.ec2_backend.describe_spot_price_history(
            self._get_param("InstanceTypes", []), self._filters_from_querystring()
        )
        history = [
            {
                "InstanceType": p["InstanceType"],
                "ProductDescription": "Linux/UNIX (Amazon VPC)",
                "SpotPrice": str(
                    round(on_demand.get(p["InstanceType"], 1.0) * rng.uniform(0.2, 0.45), 5)
                ),
                "AvailabilityZone": p["Location"],
                "Timestamp": "2026-11-28T00:00:00.000Z",
            }
            for p in prices
        ]
        return ActionResult({"SpotPriceHistory": history})

    SpotInstances.describe_spot_price_history = describe_spot_price_history


def azure_meters(rng: random.Random) -> list[dict[str, object]]:
    """The shipped catalog's sizes in each region (Linux, Windows, Spot, Low Priority), and
    filler meters to about 4,300 a region."""
    catalog = load_catalog()
    found: list[dict[str, object]] = []
    for region in AZURE_REGIONS:
        for offer in catalog.filter(cloud="azure", region=region):
            price = round(offer.on_demand_hourly * rng.uniform(0.95, 1.05), 4)
            found.append(meter(offer.instance_type, region, price))
            found.append(meter(offer.instance_type, region, price * 1.4, windows=True))
            found.append(meter(offer.instance_type, region, round(price * 0.2, 4), spot=True))
        for n in range(4_300):
            found.append(meter(f"Standard_D{n}s_v{n % 6}", region, round(0.01 * (n % 90 + 1), 4)))
    return found


def azure_skus() -> list[dict[str, object]]:
    from tests.live_prices.test_azure_refresh import sku as azure_sku

    catalog = load_catalog()
    found = []
    for offer in catalog.offers:
        if offer.cloud == "azure" and offer.region in AZURE_REGIONS:
            entry = azure_sku(
                offer.instance_type, offer.gpu_count, int(offer.vcpus), offer.memory_gib
            )
            entry["locations"] = [offer.region]
            found.append(entry)
    return found


def gcp_state(rng: random.Random) -> tuple[dict, dict, list[dict[str, object]]]:
    """Machine and accelerator types in three zones of each region, their parts' SKUs, and
    filler SKUs to some 15,000."""
    from tests.live_prices.test_gcp_refresh import PARTS, _spot_description, accelerator, machine

    machines, accelerators = {}, {}
    for region in GCP_REGIONS:
        for letter in "abc":
            zone = f"{region}-{letter}"
            machines[zone] = [
                machine("a2-highgpu-1g", 12, 85, "nvidia-tesla-a100", 1),
                machine("a2-highgpu-8g", 96, 680, "nvidia-tesla-a100", 8),
                machine("a2-ultragpu-8g", 96, 1360, "nvidia-a100-80gb", 8),
                machine("a3-highgpu-8g", 208, 1872, "nvidia-h100-80gb", 8),
                *(
                    machine(f"g2-standard-{v}", v, 4 * v, "nvidia-l4", n)
                    for v, n in ((4, 1), (24, 2), (48, 4), (96, 8))
                ),
            ]
            accelerators[zone] = [
                accelerator("nvidia-tesla-t4", 4),
                accelerator("nvidia-tesla-v100", 8),
            ]
    parts = dict(PARTS) | {
        "A3 Instance Core": (0.0305, 0.0092),
        "A3 Instance Ram": (0.0041, 0.0012),
        "Nvidia H100 80GB GPU": (9.8, 2.9),
        "Nvidia Tesla A100 80GB GPU": (3.93, 1.2),
        "Nvidia Tesla V100 GPU": (2.48, 0.74),
    }
    skus = []
    for part, (price, spot) in parts.items():
        unit = "GiBy.h" if part.endswith("Ram") else "h"
        skus.append(sku(f"{part} running in Americas", GCP_REGIONS, price, unit=unit))
        if spot is not None:
            skus.append(sku(_spot_description(part), GCP_REGIONS, spot, unit=unit))
    for n in range(15_000):
        skus.append(
            sku(
                f"Storage thing {n} in Americas",
                GCP_REGIONS,
                round(rng.uniform(0.01, 1), 4),
                unit="GiBy.mo",
            )
        )
    return machines, accelerators, skus


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="plan runs per catalog")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    rng = random.Random(32)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's request log
    folder = Path(tempfile.mkdtemp(prefix="refresh-bench-"))
    cert = self_signed(folder)
    moto_server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    moto_server.start()
    host, port = moto_server.get_host_and_port()
    on_demand: dict[str, float] = {}
    price_list = PriceListApi(aws_products(rng, on_demand), page_size=100)
    realistic_spot(rng, on_demand)
    retail = RetailPricesApi(azure_meters(rng), page_size=1000)
    aws_server, retail_server = LocalServer(price_list.route, cert), LocalServer(retail.route, cert)
    retail.base = retail_server.url
    rows = len(price_list.products) + len(retail.items)
    with (
        local_compute(cert, folder) as (compute, gcp_env),
        local_arm(cert, folder) as (arm, arm_env),
    ):
        compute.state.machine_types, compute.state.accelerator_types, skus = gcp_state(rng)
        rows += len(skus)
        billing = BillingCatalogApi(compute._authenticated, skus, page_size=5000)
        billing_server = LocalServer(billing.route, cert)
        arm.state.skus = azure_skus()
        env = arm_env.applied(gcp_env.applied(dict(os.environ)))
        env |= {
            "AWS_ENDPOINT_URL": f"http://{host}:{port}",
            "AWS_ENDPOINT_URL_PRICING": aws_server.url,
            "AWS_CA_BUNDLE": str(cert[0]),
            "AWS_ACCESS_KEY_ID": "bench",
            "AWS_SECRET_ACCESS_KEY": "bench",
            "AWS_EC2_METADATA_DISABLED": "true",
            "AWS_CONFIG_FILE": os.devnull,
            "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
            "AZURE_SUBSCRIPTION_ID": AZURE_SUBSCRIPTION,
            "GPUFLEET_AZURE_RETAIL_PRICES": f"{retail_server.url}/api/retail/prices",
            "CLOUDSDK_API_ENDPOINT_OVERRIDES_CLOUDBILLING": f"{billing_server.url}/",
        }
        env.pop("GPUFLEET_CATALOG", None)
        out = folder / "refreshed.csv"
        args = [str(GPUFLEET), "catalog", "refresh", "--output", str(out), "--accept-moves"]
        args += ["--gcp-project", GCP_PROJECT, "--format", "json"]
        for cloud, regions in (
            ("aws", AWS_REGIONS),
            ("azure", AZURE_REGIONS),
            ("gcp", GCP_REGIONS),
        ):
            args += [a for r in regions for a in ("--region", f"{cloud}:{r}")]
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        start = time.perf_counter()
        done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        peak_mb = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before) / 1024
        billing_server.close()
    aws_server.close()
    retail_server.close()
    moto_server.stop()
    if done.returncode != 0:
        raise SystemExit(f"refresh failed:\n{done.stderr}")
    report = json.loads(done.stdout)
    read = sum(c["price_rows"] for c in report["clouds"])
    spec = folder / "spec.yaml"
    spec.write_text(generate_spec(1000))
    plan_env = {k: v for k, v in os.environ.items() if k != "GPUFLEET_CATALOG"}
    timings: dict[str, list[float]] = {"shipped": [], "refreshed": []}
    for _ in range(options.runs):  # alternated, so load on the machine falls on both
        for name, extra in (("shipped", []), ("refreshed", ["--catalog", str(out)])):
            start = time.perf_counter()
            subprocess.run(
                [str(GPUFLEET), "plan", str(spec), "--format", "json", *extra],
                capture_output=True,
                check=False,
                env=plan_env,
            )
            timings[name].append(time.perf_counter() - start)
    shipped, refreshed = (statistics.median(timings[k]) for k in ("shipped", "refreshed"))
    change = refreshed / shipped - 1
    results = {
        "price_rows_served": rows,
        "price_rows_read": read,
        "offers_written": report["offers"],
        "refresh_s": round(seconds, 2),
        "refresh_peak_mb": round(peak_mb, 1),
        "plan_1000_shipped_median_s": round(shipped, 3),
        "plan_1000_refreshed_median_s": round(refreshed, 3),
        "plan_change": round(change, 3),
    }
    met = (
        read >= GOAL_ROWS
        and seconds < GOAL_SECONDS
        and peak_mb < GOAL_MB
        and abs(change) <= PLAN_TOLERANCE
    )
    if options.json:
        print(json.dumps(results | {"met": met}, indent=2))
    else:
        print(
            f"refresh: {read:,} price rows read ({rows:,} served), {report['offers']:,} offers, "
            f"{seconds:.1f} s (goal {GOAL_SECONDS:g}), peak {peak_mb:.0f} MB (goal {GOAL_MB:g})"
        )
        print(
            f"plan of 1,000 workloads: shipped {shipped:.3f} s, refreshed {refreshed:.3f} s "
            f"({100 * change:+.1f}%, goal within {100 * PLAN_TOLERANCE:g}%)"
        )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())

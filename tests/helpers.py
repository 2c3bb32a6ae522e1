"""What tests share: the repository root, synthetic price snapshots, hand-made offers and
catalogs, spec text. Fixtures built on them are in ``conftest.py``."""

from __future__ import annotations

import csv
import json
import textwrap
from pathlib import Path

import yaml

from gpufleet.planner.catalog import Catalog, Offer
from gpufleet.planner.catalog_build import SOURCE_FILES

ROOT = Path(__file__).resolve().parent.parent
# gpufleet's own folders: the import package and the top-level folders it links.
PACKAGE_FOLDERS: tuple[str, ...] = (
    "gpufleet",
    *sorted(link.name for link in (ROOT / "gpufleet").iterdir() if link.is_symlink()),
)
EXAMPLE = ROOT / "examples" / "workloads.yaml"
# The example's environments, each with a committed stack.
EXAMPLE_ENVS: tuple[str, ...] = tuple(yaml.safe_load(EXAMPLE.read_text())["environments"])

# The upstream snapshot's columns, file by file, in its own order.
_HEADERS: dict[str, str] = dict(
    zip(
        SOURCE_FILES,
        (
            "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,"
            "SpotPrice,Region,AvailabilityZone",
            "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,"
            "SpotPrice,Region,Generation",
            "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
            "AvailabilityZone,Price,SpotPrice",
            "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,"
            "Region,AvailabilityZone,Price,SpotPrice",
        ),
        strict=True,
    )
)


class Snapshot:
    """Writes a price snapshot folder in the upstream format, row by row."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.rows: dict[str, list[dict[str, str]]] = {name: [] for name in _HEADERS}

    def aws(
        self,
        itype: str,
        gpu: str,
        count: str,
        price: str,
        spot: str,
        region: str,
        zone: str,
        gpu_info: str = "",
        vcpus: str = "8",
        memory: str = "32",
    ) -> None:
        self.rows["aws_gpu.csv"].append(
            {
                "InstanceType": itype,
                "AcceleratorName": gpu,
                "AcceleratorCount": count,
                "vCPUs": vcpus,
                "MemoryGiB": memory,
                "GpuInfo": gpu_info,
                "Price": price,
                "SpotPrice": spot,
                "Region": region,
                "AvailabilityZone": zone,
            }
        )

    def azure(self, itype: str, gpu: str, count: str, price: str, spot: str, region: str) -> None:
        self.rows["azure_gpu.csv"].append(
            {
                "InstanceType": itype,
                "AcceleratorName": gpu,
                "AcceleratorCount": count,
                "vCPUs": "24",
                "MemoryGiB": "220",
                "GpuInfo": gpu,
                "Price": price,
                "SpotPrice": spot,
                "Region": region,
                "Generation": "V2",
            }
        )

    def gcp_gpu(self, sku: str, count: str, price: str, spot: str, zone: str) -> None:
        self.rows["gcp_gpu.csv"].append(
            {
                "InstanceType": "",
                "vCPUs": "",
                "MemoryGiB": "",
                "AcceleratorName": sku,
                "AcceleratorCount": count,
                "GpuInfo": "",
                "Region": zone.rsplit("-", 1)[0],
                "AvailabilityZone": zone,
                "Price": price,
                "SpotPrice": spot,
            }
        )

    def gcp_vm(self, itype: str, price: str, spot: str, zone: str) -> None:
        self.rows["gcp_gpu_hostvms.csv"].append(
            {
                "InstanceType": itype,
                "vCPUs": "12",
                "MemoryGiB": "85",
                "AcceleratorName": "",
                "AcceleratorCount": "",
                "GpuInfo": "",
                "Region": zone.rsplit("-", 1)[0],
                "AvailabilityZone": zone,
                "Price": price,
                "SpotPrice": spot,
            }
        )

    def write(self) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        for name, header in _HEADERS.items():
            with (self.root / name).open("w", newline="") as handle:
                columns: list[str] = header.split(",")
                writer = csv.DictWriter(handle, fieldnames=columns)
                writer.writeheader()
                writer.writerows(self.rows[name])
        manifest = {
            "as_of": "2026-01-01",
            "files": {name: {"path": f"upstream/{name}", "commit": "0" * 40} for name in _HEADERS},
        }
        (self.root / "snapshot.json").write_text(json.dumps(manifest))
        return self.root


def make_offer(**fields: object) -> Offer:
    """An offer with plausible defaults; override what a test is about."""
    values: dict[str, object] = {
        "cloud": "aws",
        "region": "us-east-1",
        "zone": "use1-az1",
        "instance_type": "g6.xlarge",
        "gpu_name": "L4",
        "gpu_count": 1,
        "gpu_memory_gib": 24.0,
        "vcpus": 4.0,
        "memory_gib": 16.0,
        "on_demand_hourly": 1.0,
        "spot_hourly": 0.4,
        "source": "test",
        "as_of": "2026-01-01",
    }
    values.update(fields)
    return Offer(**values)  # type: ignore[arg-type]


def catalog_of(*offers: Offer) -> Catalog:
    return Catalog(tuple(offers))


SPEC_HEADER = """\
version: 1
project: demo
owner: team@example.com
cost_center: cc-1
"""


def spec_text(body: str, environments: str = "environments:\n  prod: {}\n") -> str:
    """A valid spec header plus environments plus ``body`` (workloads and/or defaults)."""
    return SPEC_HEADER + environments + textwrap.dedent(body).lstrip("\n")

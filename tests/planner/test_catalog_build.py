"""Each catalog-cleaning rule on a small synthetic snapshot, then the real snapshot end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gpufleet.planner.catalog import Catalog, load_catalog, write_catalog_csv
from gpufleet.planner.catalog_build import (
    N1_MEMORY_GIB_HOURLY,
    N1_SPOT_MEMORY_GIB_HOURLY,
    N1_SPOT_VCPU_HOURLY,
    N1_VCPU_HOURLY,
    BuildResult,
    build_catalog,
    parse_price,
    write_cleaning_log,
)
from tests.helpers import ROOT, Snapshot


def build(snapshot: Snapshot) -> BuildResult:
    return build_catalog(snapshot.write())


def rules(result: BuildResult) -> dict[str, list[str]]:
    """rule -> the rows it acted on, as the log names them: file, what, zone."""
    out: dict[str, list[str]] = {}
    for action in result.actions:
        out.setdefault(action.rule, []).append(
            f"{action.source} {action.instance_type} {action.zone}"
        )
    return out


def offers_of(result: BuildResult, instance_type: str) -> list:
    return [o for o in result.offers if o.instance_type == instance_type]


# --- identity rules ------------------------------------------------------------------------------


def test_retired_azure_sizes_and_promotions_are_dropped(snapshot: Snapshot) -> None:
    snapshot.azure("Standard_NC6_Promo", "K80", "1", "0.18", "", "westus2")
    snapshot.azure("Standard_NC6", "K80", "1", "0.9", "0.099", "westus2")
    snapshot.azure("Standard_NC4as_T4_v3", "T4", "1", "0.526", "0.0579", "eastus")
    result = build(snapshot)
    assert [o.instance_type for o in result.offers] == ["Standard_NC4as_T4_v3"]
    assert rules(result)["retired_size"] == [
        "azure_gpu.csv Standard_NC6_Promo ",
        "azure_gpu.csv Standard_NC6 ",
    ]


def test_fpgas_and_unknown_accelerators_are_dropped(snapshot: Snapshot) -> None:
    snapshot.aws("f1.2xlarge", "Virtex UltraScale (VU9P)", "1.0", "1.65", "0.5", "us-east-1", "a")
    snapshot.aws("x9.large", "Mystery Chip", "1.0", "1.0", "0.3", "us-east-1", "a")
    snapshot.aws("g6.xlarge", "L4", "1.0", "0.8", "0.3", "us-east-1", "a")
    result = build(snapshot)
    assert [o.instance_type for o in result.offers] == ["g6.xlarge"]
    found = rules(result)
    assert found["not_a_gpu"] == ["aws_gpu.csv f1.2xlarge a"]
    assert found["unknown_accelerator"] == ["aws_gpu.csv x9.large a"]


def test_known_wrong_gpu_count_is_corrected(snapshot: Snapshot) -> None:
    snapshot.azure("Standard_ND96isr_H100_v5", "H100", "12", "98.32", "29.5", "eastus")
    result = build(snapshot)
    (offer,) = result.offers
    assert offer.gpu_count == 8
    (action,) = [a for a in result.actions if a.rule == "gpu_count_corrected"]
    assert action.action == "corrected" and "12 -> 8" in action.detail


def test_aws_gpuinfo_count_wins_over_listed_count(snapshot: Snapshot) -> None:
    info = "{'Gpus': [{'Name': 'L4', 'Count': 4, 'MemoryInfo': {'SizeInMiB': 22888}}]}"
    snapshot.aws("g6.12xlarge", "L4", "2.0", "4.6", "1.5", "us-east-1", "use1-az1", gpu_info=info)
    result = build(snapshot)
    assert result.offers[0].gpu_count == 4
    assert "gpu_count_corrected" in rules(result)


def test_gpu_partitions_and_fractional_counts_are_dropped(snapshot: Snapshot) -> None:
    snapshot.azure("Standard_NV4as_v4", "Radeon MI25", "1", "0.233", "0.0256", "eastus")
    snapshot.azure("Standard_NV32as_v4", "Radeon MI25", "1", "1.864", "0.205", "eastus")
    snapshot.aws("g9.half", "T4", "0.5", "0.3", "0.1", "us-east-1", "use1-az1")
    result = build(snapshot)
    assert [o.instance_type for o in result.offers] == ["Standard_NV32as_v4"]
    details = [a.detail for a in result.actions if a.rule == "fractional_gpu"]
    assert details == ["0.5 GPUs", "1/8 of one Radeon MI25"]


def test_gpu_names_are_normalized_and_memory_comes_from_the_vocabulary(snapshot: Snapshot) -> None:
    snapshot.aws("g5.xlarge", "A10G", "1.0", "1.0", "0.3", "us-east-1", "use1-az1")
    snapshot.azure("Standard_NC40ads_H100_v5", "H100", "1", "6.98", "2.0", "eastus")
    result = build(snapshot)
    by_type = {o.instance_type: o for o in result.offers}
    assert by_type["g5.xlarge"].gpu_memory_gib == 24
    # The NC H100 v5 sizes carry the 94 GB H100 NVL.
    assert by_type["Standard_NC40ads_H100_v5"].gpu_memory_gib == 94
    assert by_type["Standard_NC40ads_H100_v5"].zone == ""


# --- price rules ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1.5", (1.5, None)),
        ("", (None, "empty")),
        ("0", (None, "zero (0)")),
        ("-2", (None, "negative (-2)")),
        ("nan", (None, "not a number ('nan')")),
        ("n/a", (None, "not a number ('n/a')")),
        ("99999", (None, "placeholder (99999)")),
    ],
)
def test_parse_price(text: str, expected: tuple[float | None, str | None]) -> None:
    assert parse_price(text) == expected


def test_rows_without_a_usable_on_demand_price_are_dropped(snapshot: Snapshot) -> None:
    for i, price in enumerate(["", "0", "nan", "99999"]):
        snapshot.aws("p5e.48xlarge", "H200", "8.0", price, "14.9", "us-east-2", f"use2-az{i}")
    snapshot.aws("p5e.48xlarge", "H200", "8.0", "84.8", "14.9", "us-east-2", "use2-az9")
    result = build(snapshot)
    assert [o.zone for o in result.offers] == ["use2-az9"]
    assert len(rules(result)["missing_on_demand_price"]) == 4


def test_missing_or_zero_spot_keeps_the_offer_on_demand_only(snapshot: Snapshot) -> None:
    snapshot.aws("g6.xlarge", "L4", "1.0", "0.8", "", "us-east-1", "use1-az1")
    snapshot.aws("g6.xlarge", "L4", "1.0", "0.8", "0", "us-east-1", "use1-az2")
    result = build(snapshot)
    assert [o.spot_hourly for o in result.offers] == [None, None]
    assert len(rules(result)["no_spot_price"]) == 2


def test_spot_at_or_above_on_demand_is_removed(snapshot: Snapshot) -> None:
    # Inverted (spot above on-demand), an exact echo, a rounded echo (within 0.5%), and a real one.
    snapshot.azure("Standard_ND96isr_H100_v5", "H100", "8", "98.32", "98.32", "eastus")
    snapshot.aws("g5.24xlarge", "A10G", "4.0", "9.04259", "9.042600", "ca-central-1", "cac1-az1")
    snapshot.aws("g4ad.xlarge", "Radeon Pro V520", "1.0", "0.51082", "0.5108", "us-east-1", "z1")
    snapshot.aws("g6.xlarge", "L4", "1.0", "0.8", "0.79", "us-east-1", "use1-az1")
    result = build(snapshot)
    spots = {o.instance_type: o.spot_hourly for o in result.offers}
    assert spots == {
        "Standard_ND96isr_H100_v5": None,
        "g5.24xlarge": None,
        "g4ad.xlarge": None,
        "g6.xlarge": 0.79,
    }
    details = [a.detail for a in result.actions if a.rule == "spot_not_below_on_demand"]
    assert any("inverted" in d for d in details)
    assert any("echo" in d for d in details)
    assert all(o.spot_hourly is None or o.spot_hourly < o.on_demand_hourly for o in result.offers)


def test_duplicates_keep_the_most_complete_row(snapshot: Snapshot) -> None:
    snapshot.aws("p4de.24xlarge", "A100-80GB", "8.0", "40.97", "", "us-east-1", "use1-az4")
    snapshot.aws("p4de.24xlarge", "A100-80GB", "8.0", "40.97", "7.8", "us-east-1", "use1-az4")
    snapshot.aws("p4de.24xlarge", "A100-80GB", "8.0", "40.97", "7.8", "us-east-1", "use1-az4")
    result = build(snapshot)
    (offer,) = result.offers
    assert offer.spot_hourly == 7.8
    assert rules(result)["duplicate"] == ["aws_gpu.csv p4de.24xlarge use1-az4"] * 2
    # Keyed by the row, not its line: the log says nothing a row added elsewhere would change.
    assert all(":" not in a.source for a in result.actions)


# --- outliers ------------------------------------------------------------------------------------


def test_regional_outliers_on_demand_are_dropped(snapshot: Snapshot) -> None:
    prices = {
        "us-east-1": "1.0",
        "us-west-2": "1.1",
        "eu-west-1": "1.2",
        "ap-south-1": "0.40",
        "sa-east-1": "2.5",
        "eu-central-1": "1.9",
    }
    for region, price in prices.items():
        snapshot.aws("g6.xlarge", "L4", "1.0", price, "0.2", region, f"{region}-az1")
    result = build(snapshot)
    kept = sorted(o.region for o in result.offers)
    # median over regions is 1.15: 0.40 is under half of it and 2.5 over twice it; 1.9 is kept
    assert kept == ["eu-central-1", "eu-west-1", "us-east-1", "us-west-2"]
    assert len(rules(result)["regional_outlier"]) == 2


def test_outliers_need_three_regions(snapshot: Snapshot) -> None:
    snapshot.aws("g6.xlarge", "L4", "1.0", "1.0", "0.2", "us-east-1", "a")
    snapshot.aws("g6.xlarge", "L4", "1.0", "5.0", "0.2", "us-west-2", "b")
    assert len(build(snapshot).offers) == 2


def test_majority_faulty_tier_is_recognized_by_its_inconsistent_spot(snapshot: Snapshot) -> None:
    # The snapshot's GCP fault: in most regions the "on-demand" price is so low that spot sits at
    # 54% of it. A plain median would keep that tier and drop the right one; the median over rows
    # whose spot is a deep discount (<= 50%) picks the right tier.
    for zone in ("us-central1-a", "us-west1-a", "asia-southeast1-b"):
        snapshot.gcp_gpu("H100", "1", "4.20076", "2.253", zone)
    for zone in ("us-east4-a", "europe-west4-b"):
        snapshot.gcp_gpu("H100", "1", "9.79655", "1.7632", zone)
    for zone in (
        "us-central1-a",
        "us-west1-a",
        "asia-southeast1-b",
        "us-east4-a",
        "europe-west4-b",
    ):
        snapshot.gcp_vm("a3-highgpu-1g", "1.18", "0.27", zone)
    result = build(snapshot)
    assert sorted(o.zone for o in result.offers) == ["europe-west4-b", "us-east4-a"]
    dropped = [a for a in result.actions if a.rule == "regional_outlier"]
    assert len(dropped) == 3 and all("4.2008" in a.detail for a in dropped)


def test_dear_spot_is_removed_cheap_spot_is_kept(snapshot: Snapshot) -> None:
    spots = {"us-east-1": "0.30", "us-west-2": "0.35", "eu-west-1": "1.5", "ap-south-1": "0.05"}
    for region, spot in spots.items():
        snapshot.aws("g5.4xlarge", "A10G", "1.0", "3.0", spot, region, f"{region}-az1")
    result = build(snapshot)
    spot_by_region = {o.region: o.spot_hourly for o in result.offers}
    assert spot_by_region == {
        "us-east-1": 0.30,
        "us-west-2": 0.35,
        "eu-west-1": None,
        "ap-south-1": 0.05,
    }
    assert rules(result)["spot_outlier"] == ["aws_gpu.csv g5.4xlarge eu-west-1-az1"]


# --- GCP composition -----------------------------------------------------------------------------


def test_gcp_machine_price_is_vm_plus_its_built_in_gpus(snapshot: Snapshot) -> None:
    snapshot.gcp_vm("a2-highgpu-2g", "1.47", "0.59", "us-central1-a")
    snapshot.gcp_gpu("A100", "2", "5.87", "2.29", "us-central1-a")
    snapshot.gcp_gpu("A100", "2", "5.00", "2.00", "us-central1-b")  # no host VM in this zone
    snapshot.gcp_vm("a3-highgpu-8g", "9.46", "2.17", "us-central1-a")  # no H100 row
    result = build(snapshot)
    (offer,) = result.offers
    assert (offer.instance_type, offer.gpu_name, offer.gpu_count) == ("a2-highgpu-2g", "A100", 2)
    assert offer.on_demand_hourly == pytest.approx(1.47 + 5.87)
    assert offer.spot_hourly == pytest.approx(0.59 + 2.29)
    found = rules(result)
    assert found["no_host_price"] == ["gcp_gpu.csv A100 x2 us-central1-b"]
    assert found["no_gpu_price"] == ["gcp_gpu_hostvms.csv a3-highgpu-8g us-central1-a"]


def test_gcp_g2_and_mega_machines_map_to_their_gpus(snapshot: Snapshot) -> None:
    snapshot.gcp_vm("g2-standard-24", "1.0", "0.3", "us-central1-a")
    snapshot.gcp_gpu("L4", "2", "1.12", "0.4", "us-central1-a")
    snapshot.gcp_vm("a3-megagpu-8g", "9.46", "2.17", "us-central1-a")
    snapshot.gcp_gpu("H100-MEGA", "8", "82.75", "19.03", "us-central1-a")
    result = build(snapshot)
    shapes = {(o.instance_type, o.gpu_name, o.gpu_count) for o in result.offers}
    assert shapes == {("g2-standard-24", "L4", 2), ("a3-megagpu-8g", "H100", 8)}


def test_n1_hosts_are_priced_from_list_rates(snapshot: Snapshot) -> None:
    snapshot.gcp_gpu("T4", "2", "0.70", "0.28", "us-central1-a")
    result = build(snapshot)
    (offer,) = result.offers
    assert offer.instance_type == "n1-standard-16"
    assert (offer.vcpus, offer.memory_gib) == (16, 60)
    assert offer.on_demand_hourly == pytest.approx(
        0.70 + 16 * N1_VCPU_HOURLY + 60 * N1_MEMORY_GIB_HOURLY, abs=1e-6
    )
    assert offer.spot_hourly == pytest.approx(
        0.28 + 16 * N1_SPOT_VCPU_HOURLY + 60 * N1_SPOT_MEMORY_GIB_HOURLY, abs=1e-6
    )
    assert offer.source.endswith("+ N1 list rates")


def test_missing_source_file_is_a_clear_error(snapshot: Snapshot) -> None:
    root = snapshot.write()
    (root / "gcp_gpu.csv").unlink()
    with pytest.raises(FileNotFoundError, match=r"missing gcp_gpu\.csv"):
        build_catalog(root)


# --- the real snapshot ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real() -> BuildResult:
    return build_catalog(ROOT / "catalog-snapshot", ROOT / "catalog-overrides")


def test_shipped_catalog_is_built_from_the_snapshot(real: BuildResult) -> None:
    data = ROOT / "planner" / "data"
    assert (data / "catalog.csv").read_text() == write_catalog_csv(real.offers), (
        "planner/data/catalog.csv is stale: run `make catalog`"
    )
    assert (data / "catalog_cleaning.csv").read_text() == write_cleaning_log(real.actions), (
        "planner/data/catalog_cleaning.csv is stale: run `make catalog`"
    )


def test_build_is_deterministic(real: BuildResult) -> None:
    again = build_catalog(ROOT / "catalog-snapshot", ROOT / "catalog-overrides")
    assert write_catalog_csv(again.offers) == write_catalog_csv(real.offers)


def test_real_snapshot_faults_are_cleaned(real: BuildResult) -> None:
    offers = real.offers
    assert all(o.on_demand_hourly > 0 for o in offers)
    assert all(o.spot_hourly is None or 0 < o.spot_hourly < o.on_demand_hourly for o in offers)
    assert not [o for o in offers if o.instance_type.endswith("_Promo")]
    assert not [o for o in offers if o.instance_type.startswith(("f1.", "f2."))]
    nd_h100 = [o for o in offers if o.instance_type == "Standard_ND96isr_H100_v5"]
    assert nd_h100 and all(o.gpu_count == 8 and o.spot_hourly is None for o in nd_h100)
    keys = [(o.cloud, o.instance_type, o.gpu_name, o.gpu_count, o.region, o.zone) for o in offers]
    assert len(keys) == len(set(keys))
    # The README's example outlier: GCP H100 at 4.20 $/h with spot 10.02 in asia-northeast1-b.
    h100 = [
        a
        for a in real.actions
        if (a.source, a.instance_type, a.zone) == ("gcp_gpu.csv", "H100 x1", "asia-northeast1-b")
    ]
    assert [a.rule for a in h100] == ["spot_not_below_on_demand", "regional_outlier"]
    gcp_h100 = [o for o in offers if o.cloud == "gcp" and o.gpu_name == "H100"]
    assert gcp_h100 and min(o.on_demand_hourly / o.gpu_count for o in gcp_h100) > 9


def test_every_rule_is_exercised_by_the_real_snapshot(real: BuildResult) -> None:
    seen = {a.rule for a in real.actions}
    assert seen >= {
        "retired_size",
        "not_a_gpu",
        "gpu_count_corrected",
        "fractional_gpu",
        "missing_on_demand_price",
        "no_spot_price",
        "spot_not_below_on_demand",
        "duplicate",
        "regional_outlier",
        "spot_outlier",
        "no_gpu_price",
        "no_host_price",
    }


def test_shipped_catalog_loads(real: BuildResult) -> None:
    catalog = load_catalog()
    assert len(catalog.offers) == len(real.offers), (
        f"the shipped catalog has {len(catalog.offers)} offers, a build now makes "
        f"{len(real.offers)}: run `make catalog`"
    )
    assert catalog.regions("aws") >= {"us-east-1", "us-west-2"}


def test_build_script_writes_catalog_and_log(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_catalog.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "offers written" in done.stdout and "regional_outlier" in done.stdout
    assert (out / "catalog.csv").read_text() == (ROOT / "planner/data/catalog.csv").read_text(), (
        "planner/data/catalog.csv is stale: run `make catalog`"
    )
    assert sorted(p.name for p in out.iterdir()) == ["catalog.csv", "catalog_cleaning.csv"]


def test_build_script_fails_cleanly_on_a_bad_source(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "build_catalog.py"),
            "--source",
            str(tmp_path),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("build_catalog: ") and "Traceback" not in done.stderr
    assert not out.exists()


# --- gpufleet's own rows (catalog-overrides/) ---------------------------------------------------


def with_overrides(snapshot: Snapshot, tmp_path: Path, rows: str) -> tuple[Path, Path]:
    """A snapshot of one g6.xlarge, and an overrides folder whose aws_gpu.csv holds ``rows``
    (the snapshot file's columns, then Provenance and AsOf)."""
    snapshot.aws("g6.xlarge", "L4", "1.0", "0.80", "0.30", "us-east-1", "use1-az1")
    root = snapshot.write()
    overrides = tmp_path / "overrides"
    overrides.mkdir()
    header = (root / "aws_gpu.csv").read_text().splitlines()[0]
    (overrides / "aws_gpu.csv").write_text(f"{header},Provenance,AsOf\n{rows}")
    return root, overrides


def test_an_override_adds_a_row_with_its_own_provenance_and_wins(
    snapshot: Snapshot, tmp_path: Path
) -> None:
    page = "aws.amazon.com/ec2/pricing 2026-11"
    root, overrides = with_overrides(
        snapshot,
        tmp_path,
        f"g6.xlarge,L4,1.0,8,32,,0.85,0.31,us-east-1,use1-az1,{page},2025-12-30\n"
        f"g6.2xlarge,L4,1.0,8,32,,0.98,0.40,us-east-1,use1-az1,{page},2025-12-30\n",
    )
    result = build_catalog(root, overrides)
    by_type = {o.instance_type: o for o in result.offers}
    assert by_type["g6.xlarge"].on_demand_hourly == 0.85  # the override's, not the snapshot's
    # Its prices are as old as the day they were read, older than the snapshot's: the catalog
    # is as old as its oldest price.
    assert by_type["g6.2xlarge"].as_of == "2025-12-30"
    assert Catalog(tuple(result.offers)).as_of == "2025-12-30"
    assert by_type["g6.2xlarge"].source == (
        "gpufleet catalog-overrides/aws_gpu.csv: aws.amazon.com/ec2/pricing 2026-11"
    )
    (dropped,) = [a for a in result.actions if a.rule == "overridden"]
    assert (dropped.source, dropped.detail) == ("aws_gpu.csv", "by catalog-overrides/aws_gpu.csv")


def test_an_override_without_provenance_stops_the_build(snapshot: Snapshot, tmp_path: Path) -> None:
    root, overrides = with_overrides(
        snapshot, tmp_path, "g6.2xlarge,L4,1.0,8,32,,0.98,0.40,us-east-1,use1-az1,,2026-01-01\n"
    )
    with pytest.raises(ValueError, match=r"catalog-overrides/aws_gpu.csv:2: Provenance: required"):
        build_catalog(root, overrides)


@pytest.mark.parametrize("read_on", ["", "2026-11", "last week"])
def test_an_override_without_the_day_it_was_read_stops_the_build(
    snapshot: Snapshot, tmp_path: Path, read_on: str
) -> None:
    root, overrides = with_overrides(
        snapshot,
        tmp_path,
        f"g6.2xlarge,L4,1.0,8,32,,0.98,0.40,us-east-1,use1-az1,a page,{read_on}\n",
    )
    with pytest.raises(ValueError, match=r"catalog-overrides/aws_gpu.csv:2: AsOf: required"):
        build_catalog(root, overrides)


def test_an_override_the_rules_drop_stops_the_build(snapshot: Snapshot, tmp_path: Path) -> None:
    # A GPU planner/gpus.py does not know yet: dropped, where a snapshot row would only be logged.
    root, overrides = with_overrides(
        snapshot,
        tmp_path,
        "g9.xlarge,Quantum X1,1.0,8,32,,0.98,0.40,us-east-1,use1-az1,a page,2026-01-01\n",
    )
    with pytest.raises(
        ValueError,
        match=r"catalog-overrides/aws_gpu.csv:2: g9.xlarge in use1-az1: dropped by the "
        r"unknown_accelerator rule \('Quantum X1' is not in the GPU list\): add the GPU to "
        r"planner/gpus.py",
    ):
        build_catalog(root, overrides)


def test_the_docs_count_the_shipped_offers() -> None:
    text = " ".join((ROOT / "docs" / "catalog.md").read_text().split())
    stated = text.split("(`planner/data/catalog.csv`, ", 1)[1].split(" offers)", 1)[0]
    count = len(load_catalog().offers)
    assert stated == f"{count:,}", f"docs/catalog.md says {stated} offers, not {count:,}"
    text = " ".join((ROOT / "docs" / "limits.md").read_text().split())
    limits = text.split("catalog rows — the shipped one has ", 1)[1].split(" offers", 1)[0]
    assert limits == f"{count:,}", f"docs/limits.md's input limits say {limits}, not {count:,}"

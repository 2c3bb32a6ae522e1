"""``gpufleet catalog refresh --cloud aws`` with real boto3 clients: EC2 from a moto server on
127.0.0.1 (instance types, offerings by AZ id, availability zones, spot price history), the
Price List from a local HTTPS fake (moto has none). The catalog it writes equals the one the
documented rules give from the fakes' own data; a bad or partial answer writes nothing."""

from __future__ import annotations

import csv
import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import boto3
import moto
import pytest
from click.testing import CliRunner, Result

from gpufleet.cli.main import main
from gpufleet.planner.catalog import COLUMNS, Offer, format_number, load_catalog
from tests.live_prices.aws_price_list import PriceListApi, product
from tests.runs.local_https import LocalServer

REGION = "us-east-1"
# Priced in the fake Price List; moto knows every other GPU type too, which has no price.
PRICES = {"p5.48xlarge": 98.32, "p4d.24xlarge": 21.96, "g5.xlarge": 1.006, "g6.xlarge": 0.805}
# moto answers every spot price history query with this price.
MOTO_SPOT = 0.00001
MOTO_RESOURCES = Path(moto.__file__).parent / "ec2" / "resources"


@pytest.fixture
def price_list() -> PriceListApi:
    products = [(REGION, product(t, REGION, usd)) for t, usd in PRICES.items()]
    # Another region's products and machines nobody asked about: filtered out by region.
    products += [("eu-west-1", product("p5.48xlarge", "eu-west-1", 120.0))]
    products += [(REGION, product(f"m7i.{n}xlarge", REGION, 0.2 * n)) for n in range(1, 9)]
    return PriceListApi(products, page_size=3)


@pytest.fixture
def aws(
    aws_env: str,
    price_list: PriceListApi,
    certificate: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[PriceListApi]:
    """moto for EC2 (``aws_env``), the fake for the Price List."""
    server = LocalServer(price_list.route, certificate)
    monkeypatch.setenv("AWS_ENDPOINT_URL_PRICING", server.url)
    monkeypatch.setenv("AWS_CA_BUNDLE", str(certificate[0]))
    monkeypatch.delenv("GPUFLEET_CATALOG", raising=False)
    yield price_list
    server.close()


def refresh(*args: str) -> Result:
    return CliRunner().invoke(
        main, ["catalog", "refresh", "--cloud", "aws", "--region", f"aws:{REGION}", *args]
    )


def _moto(name: str) -> object:
    with gzip.open(MOTO_RESOURCES / name, "rt") as handle:
        return json.load(handle)


def expected_rows(as_of: str) -> list[dict[str, str]]:
    """The AWS rows the rules give from moto's data files and the fake's prices: each priced
    GPU type in each AZ id that offers it, spot where moto's history has the type in that zone."""
    types = _moto("instance_types.json.gz")
    assert isinstance(types, dict)
    by_id = _moto(f"instance_type_offerings/availability-zone-id/{REGION}.json.gz")
    by_name = _moto(f"instance_type_offerings/availability-zone/{REGION}.json.gz")
    assert isinstance(by_id, list) and isinstance(by_name, list)
    # The fake's own pairing of zone names and ids.
    zones = boto3.client("ec2", region_name=REGION).describe_availability_zones()
    zone_of = {z["ZoneName"]: z["ZoneId"] for z in zones["AvailabilityZones"]}
    spot_zones = {(o["InstanceType"], zone_of.get(o["Location"])) for o in by_name}
    gpus = {"p5.48xlarge": "H100", "p4d.24xlarge": "A100", "g5.xlarge": "A10G", "g6.xlarge": "L4"}
    rows = []
    for offering in by_id:
        itype, zone = offering["InstanceType"], offering["Location"]
        if itype not in PRICES:
            continue
        info = types[itype]
        gpu = info["GpuInfo"]["Gpus"][0]
        rows.append(
            {
                "cloud": "aws",
                "region": REGION,
                "zone": zone,
                "instance_type": itype,
                "gpu_name": gpus[itype],
                "gpu_count": str(gpu["Count"]),
                "gpu_memory_gib": format_number(gpu["MemoryInfo"]["SizeInMiB"] / 1024),
                "vcpus": str(info["VCpuInfo"]["DefaultVCpus"]),
                "memory_gib": format_number(info["MemoryInfo"]["SizeInMiB"] / 1024),
                "on_demand_hourly": format_number(PRICES[itype]),
                "spot_hourly": format_number(MOTO_SPOT) if (itype, zone) in spot_zones else "",
                "source": "aws:pricing.get_products+ec2.describe_spot_price_history",
                "as_of": as_of,
            }
        )
    return sorted(rows, key=lambda r: (r["zone"], r["instance_type"]))


def aws_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if (r["cloud"], r["region"]) == ("aws", REGION)]
    return sorted(rows, key=lambda r: (r["zone"], r["instance_type"]))


def test_a_refresh_writes_the_catalog_the_apis_describe(aws: PriceListApi, tmp_path: Path) -> None:
    out = tmp_path / "catalog.csv"
    # The shipped catalog's AWS prices are real; moto's spot is a token: every spot moves.
    refused = refresh("--output", str(out))
    assert refused.exit_code == 1, refused.output
    assert "more than 2x" in refused.output and "--accept-moves" in refused.output
    assert not out.exists()
    result = refresh("--output", str(out), "--accept-moves", "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    (cloud,) = report["clouds"]
    # Price rows read: this region's products only, over pages of three.
    assert cloud["price_rows"] == len(PRICES) + 8
    assert len(aws.calls) >= 4 and all(c["ServiceCode"] == "AmazonEC2" for c in aws.calls)
    written = aws_rows(out)
    as_of = written[0]["as_of"]
    expected = expected_rows(as_of)
    for got, want in zip(written, expected, strict=False):
        assert got == want, {k: (got[k], want[k]) for k in got if got[k] != want[k]}
    assert len(written) == len(expected)
    assert {r["instance_type"] for r in written} == set(PRICES)
    # What was not read (other clouds, other regions) is the shipped catalog's, row for row;
    # the file loads as a catalog.
    shipped = load_catalog()
    refreshed = load_catalog(out)

    def elsewhere(offers: tuple[Offer, ...]) -> set[Offer]:
        return {o for o in offers if (o.cloud, o.region) != ("aws", REGION)}

    assert elsewhere(refreshed.offers) == elsewhere(shipped.offers)
    assert len(refreshed.offers) == len(written) + len(elsewhere(shipped.offers))
    with out.open(encoding="utf-8") as handle:
        assert next(csv.reader(handle)) == list(COLUMNS)


def test_throttling_is_retried_by_the_sdk(aws: PriceListApi, tmp_path: Path) -> None:
    aws.throttle_first = 2
    out = tmp_path / "catalog.csv"
    result = refresh("--output", str(out), "--accept-moves")
    assert result.exit_code == 0, result.output
    assert aws_rows(out)


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        ("a page then errors", "InternalFailure"),
        ("a price that is not a number", "is not a number"),
        ("a product without attributes", "not in the documented shape"),
        ("a price that is not an object", "is not a number"),
    ],
)
def test_a_bad_or_partial_answer_leaves_the_old_catalog_untouched(
    aws: PriceListApi, tmp_path: Path, fault: str, said: str
) -> None:
    out = tmp_path / "catalog.csv"
    out.write_text("the catalog in use\n")
    if fault == "a page then errors":
        aws.fail_after_pages = 1
    elif fault == "a price that is not a number":
        aws.products.append((REGION, product("g6.2xlarge", REGION, "n/a")))
    elif fault == "a product without attributes":
        aws.products.insert(0, (REGION, json.dumps({"product": {}})))
    else:
        odd = json.loads(product("g6.4xlarge", REGION, 1.0))
        for term in odd["terms"]["OnDemand"].values():
            for dimension in term["priceDimensions"].values():
                dimension["pricePerUnit"] = "1.0 USD"
        aws.products.append((REGION, json.dumps(odd)))
    result = refresh("--output", str(out), "--accept-moves")
    assert result.exit_code == 1
    assert said in result.output, result.output
    assert "not written (the catalog in use is unchanged)" in result.output
    assert out.read_text() == "the catalog in use\n"


def test_missing_credentials_are_one_line_naming_what_to_set(
    aws: PriceListApi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    result = refresh("--output", str(tmp_path / "c.csv"))
    assert result.exit_code == 1
    assert "aws: no credentials found (AWS_PROFILE" in result.output
    assert "Traceback" not in result.output


def test_a_region_named_twice_is_read_once(aws: PriceListApi, tmp_path: Path) -> None:
    out = tmp_path / "catalog.csv"
    result = refresh("--region", f"aws:{REGION}", "--output", str(out), "--accept-moves")
    assert result.exit_code == 0, result.output
    assert aws_rows(out)

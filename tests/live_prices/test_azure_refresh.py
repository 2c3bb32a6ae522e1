"""``gpufleet catalog refresh --cloud azure`` with the real SDKs: resource SKUs through
azure-mgmt-compute from a local Resource Manager (managed identity tokens), prices through
azure-core from a local Retail Prices API. The catalog equals the one the documented rules give
from the fakes' data; a bad or partial answer writes nothing; moves past the limit need
``--accept-moves``; ``catalog diff`` shows them."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from gpufleet.cli.main import main
from gpufleet.planner.catalog import format_number, load_catalog
from tests.live_prices.azure_retail_prices import RetailPricesApi, meter
from tests.runs.azure_arm_server import ArmApi
from tests.runs.local_https import LocalServer
from tests.runs.stack_files import AZURE_SUBSCRIPTION

REGION = "eastus"
# (size, GPUs, vCPUs, GiB, pay-as-you-go, spot): sizes the shipped catalog knows.
SIZES = [
    ("Standard_NC24ads_A100_v4", 1, 24, 220, 3.70, 0.45),
    ("Standard_NC4as_T4_v3", 1, 4, 28, 0.53, 0.063),
    ("Standard_ND96isr_H100_v5", 8, 96, 1900, 98.32, None),
]


def sku(name: str, gpus: int | None, vcpus: int, memory: float, **extra: Any) -> dict[str, Any]:
    capabilities = [
        {"name": "vCPUs", "value": str(vcpus)},
        {"name": "MemoryGB", "value": str(memory)},
    ]
    if gpus is not None:
        capabilities.append({"name": "GPUs", "value": str(gpus)})
    return {
        "resourceType": "virtualMachines",
        "name": name,
        "tier": "Standard",
        "size": name.removeprefix("Standard_"),
        "locations": [REGION],
        "capabilities": capabilities,
        "restrictions": [],
        **extra,
    }


@pytest.fixture
def retail() -> RetailPricesApi:
    items = []
    for name, _, _, _, price, spot in SIZES:
        items.append(meter(name, REGION, price))
        items.append(meter(name, REGION, price * 1.6, windows=True))
        if spot is not None:
            items.append(meter(name, REGION, spot, spot=True))
    items.append(meter("Standard_NC24ads_A100_v4", "westus3", 9.99))
    # A meter not sold (price 0) listed after the real one: it replaces nothing.
    items.append(meter("Standard_NC24ads_A100_v4", REGION, 0))
    items.append(meter("Standard_D2s_v5", REGION, 0.096))
    items.append(meter("Standard_NC999_X9_v9", REGION, 1.0))
    return RetailPricesApi(items, page_size=2)


@pytest.fixture
def azure(
    arm: ArmApi,
    retail: RetailPricesApi,
    certificate: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[tuple[ArmApi, RetailPricesApi]]:
    arm.state.skus = [sku(n, g, v, m) for n, g, v, m, _, _ in SIZES]
    arm.state.skus += [
        sku("Standard_D2s_v5", None, 2, 8),
        # A GPU size the catalog cannot name a GPU for, and one the subscription may not run.
        sku("Standard_NC999_X9_v9", 1, 8, 64),
        sku(
            "Standard_NC8as_T4_v3",
            1,
            8,
            56,
            restrictions=[
                {
                    "type": "Location",
                    "reasonCode": "NotAvailableForSubscription",
                    "values": [REGION],
                }
            ],
        ),
    ]
    server = LocalServer(retail.route, certificate)
    retail.base = server.url
    monkeypatch.setenv("AZURE_SUBSCRIPTION_ID", AZURE_SUBSCRIPTION)
    monkeypatch.setenv("GPUFLEET_AZURE_RETAIL_PRICES", f"{server.url}/api/retail/prices")
    monkeypatch.delenv("GPUFLEET_CATALOG", raising=False)
    yield arm, retail
    server.close()


def refresh(*args: str) -> Result:
    return CliRunner().invoke(
        main, ["catalog", "refresh", "--cloud", "azure", "--region", f"azure:{REGION}", *args]
    )


def azure_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return sorted(
            (r for r in csv.DictReader(handle) if (r["cloud"], r["region"]) == ("azure", REGION)),
            key=lambda r: r["instance_type"],
        )


def test_a_refresh_writes_the_catalog_the_apis_describe(
    azure: tuple[ArmApi, RetailPricesApi], tmp_path: Path
) -> None:
    _, retail = azure
    out = tmp_path / "catalog.csv"
    # The fakes list three of the 24 sizes the shipped catalog has in the region: most
    # offers and spot prices gone, as a partial answer would look; taken only when accepted.
    refused = refresh("--output", str(out))
    assert refused.exit_code == 1
    assert f"azure {REGION}: 21 of its 24 offers gone" in refused.output
    assert "spot prices gone" in refused.output and not out.exists()
    retail.calls.clear()
    result = refresh("--output", str(out), "--format", "json", "--accept-moves")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    (cloud,) = report["clouds"]
    # Price items of this region: three sizes' Linux and Windows meters, two spot, two others,
    # one not sold.
    assert cloud["price_rows"] == 3 * 2 + 2 + 2 + 1
    assert len(retail.calls) == 6  # pages of two
    assert cloud["skipped"] == [
        f"azure {REGION} Standard_NC8as_T4_v3: not available to the subscription",
        f"azure {REGION} Standard_NC999_X9_v9: GPU model not known (catalog-overrides/)",
    ]
    shipped = load_catalog()
    written = azure_rows(out)
    as_of = written[0]["as_of"]
    expected = []
    for name, gpus, vcpus, memory, price, spot in sorted(SIZES):
        shape = shipped.shape("azure", name)
        assert shape is not None
        expected.append(
            {
                "cloud": "azure",
                "region": REGION,
                "zone": "",
                "instance_type": name,
                "gpu_name": shape.gpu_name,
                "gpu_count": str(gpus),
                "gpu_memory_gib": format_number(shape.gpu_memory_gib),
                "vcpus": str(vcpus),
                "memory_gib": str(memory),
                "on_demand_hourly": format_number(price),
                "spot_hourly": format_number(spot),
                "source": "azure:retail-prices+resource-skus",
                "as_of": as_of,
            }
        )
    assert written == expected
    assert as_of.endswith("Z") and len(as_of) == 20


def test_throttling_is_retried_with_retry_after(
    azure: tuple[ArmApi, RetailPricesApi], tmp_path: Path
) -> None:
    _, retail = azure
    retail.throttle_first = 2
    out = tmp_path / "catalog.csv"
    assert refresh("--output", str(out), "--accept-moves").exit_code == 0
    assert len(azure_rows(out)) == 3


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        ("a page then errors", "retail prices"),
        ("a price that is not a number", "is not a number"),
        ("no identity", "azure: no credential found"),
        ("no subscription", "azure: set AZURE_SUBSCRIPTION_ID"),
    ],
)
def test_a_bad_or_partial_answer_leaves_the_old_catalog_untouched(
    azure: tuple[ArmApi, RetailPricesApi],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fault: str,
    said: str,
) -> None:
    arm, retail = azure
    if fault == "no subscription":
        monkeypatch.delenv("AZURE_SUBSCRIPTION_ID")
    elif fault == "a page then errors":
        retail.fail_after_pages = 2
    elif fault == "a price that is not a number":
        retail.items.append(meter("Standard_NC4as_T4_v3", REGION, "0.5"))
    else:
        arm.state.identity = False
    out = tmp_path / "catalog.csv"
    out.write_text("kept\n")
    result = refresh("--output", str(out))
    assert result.exit_code == 1, result.output
    assert said in result.output
    assert "Traceback" not in result.output
    assert out.read_text() == "kept\n"


def test_moves_past_the_limit_need_accepting_and_diff_shows_them(
    azure: tuple[ArmApi, RetailPricesApi], tmp_path: Path
) -> None:
    _, retail = azure
    for item in retail.items:
        if item["armSkuName"] == "Standard_NC4as_T4_v3" and item["skuName"].endswith("v3"):
            item["retailPrice"] = 2.5  # from 0.526: more than 2x
    out = tmp_path / "catalog.csv"
    refused = refresh("--output", str(out))
    assert refused.exit_code == 1
    assert "Standard_NC4as_T4_v3: on_demand_hourly 0.526 -> 2.5 (more than 2x)" in refused.output
    assert not out.exists()
    wider = refresh("--output", str(out), "--max-move", "5")
    assert "on_demand_hourly" not in wider.output  # within 5x; the sizes gone still stop it
    assert refresh("--output", str(out), "--accept-moves").exit_code == 0
    shipped = tmp_path / "shipped.csv"
    shipped.write_text((Path(__file__).parents[2] / "planner/data/catalog.csv").read_text())
    diff = CliRunner().invoke(main, ["catalog", "diff", str(shipped), str(out)])
    assert diff.exit_code == 0, diff.output
    assert "0.5260 -> 2.5000 (+375.3%)" in diff.output
    as_json = CliRunner().invoke(
        main, ["catalog", "diff", str(shipped), str(out), "--format", "json"]
    )
    found = json.loads(as_json.output)
    moved = {m["new"]["instance_type"]: m["changes"] for m in found["moved"]}
    assert moved["Standard_NC4as_T4_v3"]["on_demand_hourly"] == pytest.approx(2.5 / 0.526 - 1)
    # The refresh read eastus only: other regions are kept from the catalog in use; eastus
    # sizes the fakes do not list are gone.
    removed = {o["instance_type"] for o in found["removed"]}
    assert "Standard_NC8as_T4_v3" in removed  # not available to the subscription
    assert all(o["region"] == REGION for o in found["removed"])


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "1"])
def test_a_move_limit_that_is_not_a_finite_factor_above_one_is_refused(
    tmp_path: Path, value: str
) -> None:
    result = CliRunner().invoke(
        main, ["catalog", "refresh", "--max-move", value, "--output", str(tmp_path / "c.csv")]
    )
    assert result.exit_code == 2
    assert "--max-move" in result.output and not (tmp_path / "c.csv").exists()

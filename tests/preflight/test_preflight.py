"""``gpufleet preflight`` against the clouds' quota APIs through their SDKs — a local Service
Quotas API (boto3), a local Compute Engine (google-cloud-compute), a local Resource Manager
(azure-mgmt-compute) — finds a missing quota on each cloud; ``plan --respect-quotas`` with the
saved preflight plans around it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from gpufleet.cli.main import main
from gpufleet.planner.catalog import load_catalog
from tests.helpers import ROOT, spec_text
from tests.preflight.service_quotas import ServiceQuotasApi, quota
from tests.preflight.spot_placement_scores import SpotScoresApi
from tests.runs.azure_arm_server import ArmApi
from tests.runs.gcp_compute_server import ComputeApi
from tests.runs.local_https import LocalServer
from tests.runs.stack_files import (
    AWS_REGION,
    AZURE_REGION,
    ENVIRONMENT,
    GCP_REGION,
    write_stack_config,
)

AWS_SPOT_G = "All G and VT Spot Instance Requests"


@pytest.fixture
def service_quotas(
    certificate: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ServiceQuotasApi]:
    api = ServiceQuotasApi({AWS_REGION: [quota("L-3819A6DF", AWS_SPOT_G, 600)]})
    server = LocalServer(api.route, certificate)
    scores = LocalServer(SpotScoresApi({AWS_REGION: 2}).route, certificate)
    for name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_ENDPOINT_URL_SERVICE_QUOTAS", server.url)
    monkeypatch.setenv("AWS_ENDPOINT_URL_EC2", scores.url)
    monkeypatch.setenv("AWS_CA_BUNDLE", str(certificate[0]))
    yield api
    server.close()
    scores.close()


@pytest.fixture
def clouds(
    service_quotas: ServiceQuotasApi, compute: ComputeApi, arm: ArmApi
) -> tuple[ComputeApi, ArmApi]:
    compute.state.region_quotas[GCP_REGION] = [
        {"metric": "CPUS", "limit": 2400, "usage": 100},
        {"metric": "NVIDIA_H100_GPUS", "limit": 64, "usage": 0},
        # 16 Spot H100s, 10 of them in use: the stack's 8 do not fit.
        {"metric": "PREEMPTIBLE_NVIDIA_H100_GPUS", "limit": 16, "usage": 10},
        {"metric": "NVIDIA_H100_MEGA_GPUS", "limit": 0, "usage": 0},
        {"metric": "PREEMPTIBLE_NVIDIA_H100_MEGA_GPUS", "limit": 0, "usage": 0},
    ]
    arm.state.skus = [
        {
            "resourceType": "virtualMachines",
            "name": "Standard_NC24ads_A100_v4",
            "family": "standardNCADSA100v4Family",
            "locations": [AZURE_REGION],
            "capabilities": [],
        }
    ]
    arm.state.usages[AZURE_REGION] = [
        {
            "name": {"value": "cores", "localizedValue": "Total Regional vCPUs"},
            "currentValue": 8,
            "limit": 350,
            "unit": "Count",
        },
        {
            "name": {"value": "standardNCADSA100v4Family", "localizedValue": "NCADS A100 v4"},
            "currentValue": 0,
            "limit": 96,
            "unit": "Count",
        },
        # Spot's 100 vCPUs: the stack's 144 do not fit.
        {
            "name": {
                "value": "lowPriorityCores",
                "localizedValue": "Total Regional Low-priority vCPUs",
            },
            "currentValue": 0,
            "limit": 100,
            "unit": "Count",
        },
    ]
    return compute, arm


def preflight(config: Path, *args: str) -> Result:
    where = ["--program", str(ROOT), "--config", str(config), "--env", ENVIRONMENT]
    return CliRunner().invoke(main, ["preflight", *where, *args])


def test_preflight_finds_a_missing_quota_on_each_cloud(
    clouds: tuple[ComputeApi, ArmApi], tmp_path: Path
) -> None:
    config = write_stack_config(tmp_path)
    saved = tmp_path / "preflight.json"
    result = preflight(config, "--format", "json", "--output", str(saved))
    assert result.exit_code == 1, result.output
    found = json.loads(result.output)
    assert json.loads(saved.read_text()) == found
    checks = {(c["cloud"], c["name"]): c for c in found["checks"]}
    g6 = load_catalog().shape("aws", "g6.12xlarge")
    assert g6 is not None
    # AWS: the G spot quota (600 vCPUs) holds 11 instances of 48; on-demand G is at 0, and the
    # reserved base's 2 instances need 96.
    spot = checks[("aws", AWS_SPOT_G)]
    assert (spot["needed"], spot["short"]) == (11 * g6.vcpus, False)
    assert checks[("aws", "Running On-Demand G and VT instances")]["needed"] == 2 * g6.vcpus
    assert checks[("aws", "Running On-Demand G and VT instances")]["short"] is True
    # GCP: 8 Spot H100s against 6 free.
    gcp = checks[("gcp", "PREEMPTIBLE_NVIDIA_H100_GPUS")]
    assert (gcp["needed"], gcp["free"], gcp["short"]) == (8, 6, True)
    # Azure: 6 Spot sizes of 24 vCPUs against 100.
    azure = checks[("azure", "lowPriorityCores")]
    assert (azure["needed"], azure["short"]) == (144, True)
    assert not found["problems"] and not found["unchecked"]
    assert any("aws-sagemaker" in line for line in found["skipped"])
    assert any("azure-ml" in line for line in found["skipped"])
    # AWS's spot capacity signal for each spot need: advice, said, not a failure.
    (score,) = found["spot_scores"]
    assert (score["instance_type"], score["instances"], score["score"], score["low"]) == (
        "g6.12xlarge",
        11,
        2,
        True,
    )
    table = preflight(config)
    assert table.exit_code == 1
    assert "SHORT" in table.output and "does not fit" in table.output
    assert "spot placement score of 11 x g6.12xlarge in us-west-2: 2/10 (low" in table.output


def test_a_cloud_that_cannot_be_read_fails_closed(
    clouds: tuple[ComputeApi, ArmApi], tmp_path: Path
) -> None:
    compute, arm = clouds
    compute.state.denied.add("compute.regions.get")
    arm.state.usages[AZURE_REGION] = arm.state.usages[AZURE_REGION][:1]  # no Spot quota listed
    result = preflight(write_stack_config(tmp_path), "--format", "json")
    assert result.exit_code == 1
    found = json.loads(result.output)
    assert any(
        p.startswith("gcp: quotas not read: gcp: permission denied: compute.regions.get")
        for p in found["problems"]
    )
    assert any("Standard_NC24ads_A100_v4 (spot" in u for u in found["unchecked"])


PLAN_SPEC = """
defaults:
  clouds: [aws]
  regions: {aws: [us-west-2, us-east-1]}
workloads:
  - name: serve
    kind: inference
    gpu: {name: L4, count: 4}
    replicas: {min: 2, max: 2}
    always_on: true
"""


def test_plan_respects_a_saved_preflight(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(spec_text(PLAN_SPEC, "environments:\n  prod: {max_commitment: none}\n"))
    runner = CliRunner()
    free = json.loads(runner.invoke(main, ["plan", str(spec), "--format", "json"]).stdout)
    (placed,) = free["environments"][0]["workloads"]
    region = placed["region"]
    assert placed["pricing"] == "on_demand"
    # The account has no on-demand G vCPUs where the plan went: it goes to the other region.
    quotas = [
        {
            "cloud": "aws",
            "region": region,
            "name": "Running On-Demand G and VT instances",
            "code": "L-DB2E81BA",
            "market": "on_demand",
            "unit": "vcpus",
            "covers": ["g", "vt"],
            "limit": 0,
            "used": None,
        }
    ]
    saved = tmp_path / "preflight.json"
    saved.write_text(json.dumps({"quotas": quotas}))
    result = runner.invoke(
        main, ["plan", str(spec), "--format", "json", "--respect-quotas", str(saved)]
    )
    assert result.exit_code == 0, result.output
    (moved,) = json.loads(result.stdout)["environments"][0]["workloads"]
    assert moved["region"] != region and moved["instance_type"].startswith("g")
    # Neither region has room: not placed, and the reason names the quotas.
    quotas.append(quotas[0] | {"region": moved["region"]})
    saved.write_text(json.dumps({"quotas": quotas}))
    result = runner.invoke(
        main, ["plan", str(spec), "--format", "json", "--respect-quotas", str(saved)]
    )
    assert result.exit_code == 1
    (unplaced,) = json.loads(result.stdout)["environments"][0]["unplaced"]
    assert "overrun a quota the preflight found" in unplaced["reason"]
    assert "Running On-Demand G and VT instances (0 vcpus free)" in unplaced["reason"]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("{", "not valid JSON"),
        ('{"checks": []}', "quotas: no quotas list"),
        ('{"quotas": [{"cloud": "aws"}]}', "quotas[0]"),
        (
            json.dumps(
                {
                    "quotas": [
                        {"cloud": "aws", "region": "r", "name": "n", "market": "spot"}
                        | {"unit": "vcpus", "covers": ["g"], "limit": -1}
                    ]
                }
            ),
            "quotas[0].limit",
        ),
    ],
)
def test_a_saved_preflight_that_is_not_one_is_one_line(
    tmp_path: Path, content: str, said: str
) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(spec_text(PLAN_SPEC))
    saved = tmp_path / "bad.json"
    saved.write_text(content)
    result = CliRunner().invoke(main, ["plan", str(spec), "--respect-quotas", str(saved)])
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"{saved}:") and said in line


ACROSS_CLOUDS = """
workloads:
  - name: train-gcp
    kind: training
    gpu: {name: H100, count: 8}
    interruptible: true
    hours_per_month: 100
    clouds: [gcp]
    regions: {gcp: [us-east4, europe-west4]}
  - name: serve-azure
    kind: inference
    gpu: {name: A100-80GB, count: 1}
    replicas: {min: 6, max: 6}
    interruptible: true
    hours_per_month: 100
    clouds: [azure]
    regions: {azure: [eastus2, westus2]}
"""


def test_a_saved_preflight_steers_the_plan_off_each_short_quota(
    clouds: tuple[ComputeApi, ArmApi], tmp_path: Path
) -> None:
    """End to end: the preflight of the stack finds GCP's Spot H100s and Azure's Spot vCPUs
    short; planning with it, workloads that would use them go where nothing was found short."""
    saved = tmp_path / "preflight.json"
    assert preflight(write_stack_config(tmp_path), "--output", str(saved)).exit_code == 1
    spec = tmp_path / "spec.yaml"
    spec.write_text(spec_text(ACROSS_CLOUDS))
    runner = CliRunner()

    def placed(*extra: str) -> dict[str, str]:
        result = runner.invoke(main, ["plan", str(spec), "--format", "json", *extra])
        assert result.exit_code == 0, result.output
        workloads = json.loads(result.stdout)["environments"][0]["workloads"]
        return {w["name"]: w["region"] for w in workloads}

    # Without the quotas, both go to the regions the preflight found short.
    assert placed() == {"train-gcp": GCP_REGION, "serve-azure": AZURE_REGION}
    # With them: GCP's H100s (A3 High and Mega alike) go to the other region; Azure's six
    # one-GPU replicas (144 vCPUs) pack onto one 8-GPU size of 96 vCPUs, within its 100.
    within = runner.invoke(
        main, ["plan", str(spec), "--format", "json", "--respect-quotas", str(saved)]
    )
    assert within.exit_code == 0, within.output
    workloads = {w["name"]: w for w in json.loads(within.stdout)["environments"][0]["workloads"]}
    assert workloads["train-gcp"]["region"] == "europe-west4"
    azure = workloads["serve-azure"]
    shape = load_catalog().shape("azure", azure["instance_type"])
    assert shape is not None
    assert azure["region"] != AZURE_REGION or azure["instances"] * shape.vcpus <= 100


def test_plan_refuses_a_preflight_that_could_not_read_a_cloud(tmp_path: Path) -> None:
    """Its unread clouds would be planned as if they had no quotas."""
    spec = tmp_path / "spec.yaml"
    spec.write_text(spec_text(PLAN_SPEC))
    saved = tmp_path / "preflight.json"
    saved.write_text(
        json.dumps({"problems": ["gcp: quotas not read: no credentials"], "quotas": []})
    )
    result = CliRunner().invoke(main, ["plan", str(spec), "--respect-quotas", str(saved)])
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert f"{saved}:1: problems: the preflight could not read every cloud" in line


def test_a_machine_the_catalog_does_not_size_is_unchecked(
    clouds: tuple[ComputeApi, ArmApi], tmp_path: Path
) -> None:
    """A stack generated from another catalog: its vCPUs are not known, so it is not known to
    fit (fail closed)."""
    from tests.runs.stack_files import part, workload

    odd = workload("odd", "aws", [part("aws:SpotFleet", 2, "on_request")])
    odd["instanceType"] = "g6.99xlarge"
    result = preflight(write_stack_config(tmp_path, [odd]), "--format", "json")
    assert result.exit_code == 1
    (line,) = json.loads(result.output)["unchecked"]
    assert "odd: g6.99xlarge is not in the catalog in use" in line

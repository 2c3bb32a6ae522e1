"""The evasion corpus: programs that try to get an oversized, untagged, unpriced or public GPU
past the dev policies, on every way the three clouds sell one, and the honest programs that
must pass. Each case (``cases/<cloud>_<what>.py``) states its verdict (``EXPECT``: the
policies that must find something on its resources, no more, no fewer); all of them run as
one program (``program/``) through ``gpufleet check``, as users run it, once with realistic
outputs and once as a preview."""

from __future__ import annotations

import ast
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from gpufleet.capacity.cost_report import check_report
from gpufleet.clouds import CLOUDS
from tests.checks.check_runs import DEV_CONFIG, gpufleet

HERE = Path(__file__).parent
PROGRAM = "tests/corpus/program"
CASES = {path.stem.replace("_", "-"): path for path in sorted((HERE / "cases").glob("[!_]*.py"))}


def expected(path: Path) -> set[str]:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "EXPECT":
            return set(ast.literal_eval(node.value))
    raise AssertionError(f"{path.name} states no EXPECT")


def case_of(resource_name: str) -> str | None:
    """The case a resource belongs to: the longest case name it is, or starts with + "-"."""
    owners = [c for c in CASES if resource_name == c or resource_name.startswith(c + "-")]
    return max(owners, key=len) if owners else None


@pytest.fixture(scope="module", params=["realistic", "preview"])
def verdicts(request: pytest.FixtureRequest) -> dict[str, set[str]]:
    preview = ["--preview"] if request.param == "preview" else []
    result = gpufleet(
        "check", "--env", "dev", "--program", PROGRAM, "--policy-config", DEV_CONFIG,
        "--format", "json", *preview,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    assert report["program"]["ranToEnd"], report["program"]
    found: dict[str, set[str]] = defaultdict(set)
    for finding in report["findings"]:
        if not finding["name"]:
            continue  # the stack's total against the budget: no one case's
        owner = case_of(finding["name"])
        assert owner is not None, f"{finding['name']} belongs to no case"
        found[owner].add(finding["policy"])
    return found


def test_the_corpus_covers_the_three_clouds() -> None:
    clouds = defaultdict(int)
    for name in CASES:
        clouds[name.split("-", 1)[0]] += 1
    assert len(CASES) >= 190
    assert set(clouds) == set(CLOUDS)
    assert min(clouds.values()) >= 40, clouds
    honest = [name for name, path in CASES.items() if not expected(path)]
    assert len(honest) >= 40, "honest programs keep the checks from passing by flagging all"


def test_every_case_registers_its_resources() -> None:
    """A case that registers nothing would pass its verdict without being checked."""
    result = gpufleet("preview", "--env", "dev", "--program", PROGRAM, "--format", "json")
    assert result.returncode == 0, result.stderr
    names: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("urn"), str) and isinstance(value.get("name"), str):
                names.add(value["name"])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(json.loads(result.stdout))
    registered = {case_of(name) for name in names}
    assert set(CASES) <= registered, sorted(set(CASES) - registered)


@pytest.mark.parametrize("case", list(CASES))
def test_case_verdict(case: str, verdicts: dict[str, set[str]]) -> None:
    assert verdicts.get(case, set()) == expected(CASES[case]), CASES[case].read_text()[:300]


def test_the_corpus_is_priced_or_said_unpriced_never_zero() -> None:
    """``gpufleet cost`` over the corpus: a valid report; each part of a resource of several
    its own line; every GPU resource read by name unpriced, none at $0 by omission."""
    result = gpufleet("cost", "--env", "dev", "--program", PROGRAM, "--format", "json")
    assert result.returncode == 1, result.stderr  # unpriced GPUs under a budget
    report = check_report(json.loads(result.stdout), "cost")
    lines = {r["name"]: r for w in report["workloads"] for r in w["resources"]}
    pools = {
        r["part"] for r in lines.values() if r["urn"].endswith("::gcp-gke-cluster-inline-pools")
    }
    assert pools == {"gpu"}  # its CPU pool holds no GPUs
    assert lines["gcp-gke-cluster-inline-pools/gpu"]["expected"]["monthly_usd"] > 0
    for name in ("aws-dedicated-host-gpu", "gcp-cloud-run-gpu", "azure-container-group-gpu"):
        assert lines[name]["unpriced"] and lines[name]["expected"]["monthly_usd"] is None, name
    table = gpufleet("cost", "--env", "dev", "--program", PROGRAM)
    # A group choosing by attributes lists dozens of machines: the cell names three.
    assert re.search(r"p4d\.24xlarge/\S+/\S+/\.\.\. \(\d+ types\)", table.stdout), table.stdout

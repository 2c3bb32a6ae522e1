"""The gpufleet commands that plan: validate, plan (tables, JSON, --explain), schema, catalog list;
exit codes and one line per problem."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner, Result

from gpufleet.cli.main import main
from tests.helpers import ROOT, spec_text

EXAMPLE = str(ROOT / "examples" / "workloads.yaml")


PROBLEM_LINE = re.compile(r"^.+:\d+: [\w\[\].&-]+: .+$")


WriteSpec = Callable[[str], Path]


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_help_lists_commands() -> None:
    result = run("--help")
    assert result.exit_code == 0
    for command in ("plan", "validate", "schema", "catalog"):
        assert command in result.stdout
    for sub in (["plan", "--help"], ["catalog", "list", "--help"], ["validate", "--help"]):
        assert run(*sub).exit_code == 0
    assert "--explain" in run("plan", "--help").stdout


def test_version() -> None:
    assert run("--version").stdout.strip() == "gpufleet, version 0.1.0"


def test_validate_ok() -> None:
    result = run("validate", EXAMPLE)
    assert result.exit_code == 0
    assert result.stdout == f"{EXAMPLE}: ok (8 workloads, 3 environments)\n"


def test_validate_reports_every_problem_and_exits_2(write_spec: WriteSpec) -> None:
    path = write_spec(
        spec_text(
            """
            workloads:
              - name: a
                kind: trianing
                gpu: {name: H1000}
            """
        )
    )
    result = run("validate", str(path))
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines == [
        f"{path}:9: workloads[0].kind: Input should be 'training', 'inference' or 'batch' "
        "(got 'trianing')",
        lines[1],
    ]
    assert lines[1].startswith(f"{path}:10: workloads[0].gpu.name: unknown GPU 'H1000'")
    assert all(PROBLEM_LINE.match(line) for line in lines)
    assert result.stdout == ""


def test_missing_spec_file() -> None:
    result = run("plan", "/no/such/spec.yaml")
    assert result.exit_code == 2
    assert result.stderr == "/no/such/spec.yaml:1: file: cannot read: No such file or directory\n"


def test_plan_table() -> None:
    result = run("plan", EXAMPLE)
    assert result.exit_code == 0, result.stderr
    for name in ("pretrain-llm", "chat-serving", "support-bot-finetune", "ranker-train"):
        assert name in result.stdout
    assert result.stdout.count("total") == 3
    assert "prod: prices as of" in result.stdout
    # prod reserves chat-serving's base: the plan says the commitment is bought outside Pulumi
    # (dev and staging, capped at no commitment, do not say it).
    assert result.stdout.count("is bought outside Pulumi") == 1
    prod = result.stdout[result.stdout.index("prod: prices as of") :]
    assert "reserved_1y / reserved_3y: the stack holds the capacity" in prod


def test_plan_json_is_parseable_and_selects_environments() -> None:
    result = run("plan", EXAMPLE, "--format", "json", "--env", "prod", "--env", "dev")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert [e["environment"] for e in data["environments"]] == ["prod", "dev"]
    prod = data["environments"][0]
    assert {w["name"] for w in prod["workloads"]} >= {"pretrain-llm", "chat-serving"}
    assert prod["totals"]["savings_usd"] > 0


def test_unknown_environment() -> None:
    result = run("plan", EXAMPLE, "--env", "qa")
    assert result.exit_code == 2
    assert result.stderr == f"{EXAMPLE}: no environment 'qa'; defined: dev, staging, prod\n"


def test_unplaced_workload_exits_1_with_its_reason(write_spec: WriteSpec) -> None:
    path = write_spec(
        spec_text(
            """
            workloads:
              - name: cheap-h100
                kind: training
                gpu: {name: H100, count: 8}
                max_price_per_hour: 5
              - name: fine
                kind: batch
                gpu: {name: L4}
            """
        )
    )
    result = run("plan", str(path), "--format", "json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)  # stdout stays parseable
    assert [u["name"] for u in data["environments"][0]["unplaced"]] == ["cheap-h100"]
    assert result.stderr == (
        "prod: cheap-h100: not placed: no 8x H100 offer under max_price_per_hour 5 in allowed "
        "regions\n"
    )


def test_over_budget_exits_1(write_spec: WriteSpec) -> None:
    path = write_spec(
        spec_text(
            "workloads:\n  - {name: big, kind: training, gpu: {name: H100, count: 8}}\n",
            environments="environments:\n  prod: {monthly_budget_usd: 100}\n",
        )
    )
    result = run("plan", str(path))
    assert result.exit_code == 1
    assert re.fullmatch(
        r"prod: [\d,.]+ \$/month is over the budget of 100\.00 by [\d,.]+\n", result.stderr
    )


def test_explain_table() -> None:
    result = run("plan", EXAMPLE, "--env", "prod", "--explain", "pretrain-llm", "--top", "3")
    assert result.exit_code == 0
    out = result.stdout
    assert "pretrain-llm in prod: needs 8x H100" in out
    assert "excluded" in out and "network: no cluster networking for a 2-node job" in out
    assert "cheapest: chosen" in out and out.count("$/month (+") == 2
    assert "best per pricing model:" in out and "on_demand" in out


def test_explain_json() -> None:
    result = run("plan", EXAMPLE, "--explain", "chat-serving", "--format", "json")
    assert result.exit_code == 0
    explanations = json.loads(result.stdout)
    # chat-serving runs in staging and prod only.
    assert [e["environment"] for e in explanations] == ["staging", "prod"]
    prod = explanations[1]
    assert prod["placed"] and prod["reason"] is None
    assert prod["candidates"][0]["extra_monthly_usd"] == 0
    assert prod["candidates"][0]["pricing"] == "reserved_3y"
    assert {p["pricing"] for p in prod["best_per_pricing"]} == {
        "on_demand",
        "reserved_1y",
        "reserved_3y",
    }


def test_explain_unknown_and_unplaced(write_spec: WriteSpec) -> None:
    unknown = run("plan", EXAMPLE, "--explain", "nope")
    assert unknown.exit_code == 2
    assert unknown.stderr.startswith(f"{EXAMPLE}: no workload named 'nope'; workloads: ")
    path = write_spec(
        spec_text(
            "workloads:\n  - {name: x, kind: training, gpu: {name: L4}, clouds: [aws], "
            "regions: {aws: [me-south-1]}}\n"
        )
    )
    unplaced = run("plan", str(path), "--explain", "x")
    assert unplaced.exit_code == 1
    assert "not placed: no 1x L4 offer in allowed regions (aws: me-south-1)" in unplaced.stdout


def test_explain_workload_outside_the_environment() -> None:
    result = run("plan", EXAMPLE, "--env", "dev", "--explain", "pretrain-llm")
    assert result.exit_code == 1
    assert result.stderr == "pretrain-llm runs in none of: dev\n"


def test_schema_validates_the_example_and_rejects_typos() -> None:
    result = run("schema")
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    example = yaml.safe_load(Path(EXAMPLE).read_text())
    jsonschema.validate(example, schema)
    example["workloads"][0]["nodez"] = 2
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(example, schema)


def test_catalog_list_formats_and_filters() -> None:
    as_json = run("catalog", "list", "--gpu", "h100", "--cloud", "aws", "--format", "json")
    assert as_json.exit_code == 0
    rows = json.loads(as_json.stdout)
    assert rows and {(r["cloud"], r["gpu_name"]) for r in rows} == {("aws", "H100")}
    as_csv = run("catalog", "list", "--region", "eastus", "--format", "csv")
    table = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert table and {r["region"] for r in table} == {"eastus"}
    assert set(table[0]) >= {"on_demand_hourly", "spot_hourly", "source", "as_of"}
    as_table = run("catalog", "list", "--gpu", "L40S", "--cloud", "aws", "--region", "us-east-1")
    assert as_table.exit_code == 0 and "g6e.xlarge" in as_table.stdout


def test_catalog_list_errors_and_empty_results() -> None:
    unknown = run("catalog", "list", "--gpu", "H1000")
    assert unknown.exit_code == 2 and unknown.stderr.startswith("unknown GPU 'H1000'; known: ")
    bad_cloud = run("catalog", "list", "--cloud", "oracle")
    assert bad_cloud.exit_code == 2 and "'oracle' is not one of" in bad_cloud.stderr
    typo = run("catalog", "list", "--region", "us-eats-1")
    assert typo.exit_code == 2
    assert typo.stderr == "unknown region 'us-eats-1' (did you mean 'us-east-1'?)\n"
    # A real region with nothing matching is not an error.
    empty = run("catalog", "list", "--gpu", "H200", "--region", "eastus")
    assert empty.exit_code == 0 and empty.stderr == "no offers match\n"
    as_json = run("catalog", "list", "--gpu", "H200", "--region", "eastus", "--format", "json")
    assert json.loads(as_json.stdout) == []


def test_custom_catalog_file(tmp_path: Path) -> None:
    shipped = (ROOT / "planner" / "data" / "catalog.csv").read_text().splitlines()
    small = tmp_path / "catalog.csv"
    small.write_text(
        "\n".join([shipped[0], *[r for r in shipped if ",g6.xlarge," in r][:2]]) + "\n"
    )
    rows = json.loads(run("catalog", "list", "--catalog", str(small), "--format", "json").stdout)
    assert len(rows) == 2
    broken = tmp_path / "broken.csv"
    broken.write_text("not,a,catalog\n")
    result = run("plan", EXAMPLE, "--catalog", str(broken))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{broken}:1: header: header is")
    bad_row = tmp_path / "bad_row.csv"
    bad_row.write_text(shipped[0] + "\n" + shipped[1].replace(",8,", ",eight,", 1) + "\n")
    result = run("catalog", "list", "--catalog", str(bad_row))
    assert result.exit_code == 2
    assert result.stderr == (f"{bad_row}:2: gpu_count: 'eight' is not a whole number\n")
    short_row = tmp_path / "short_row.csv"
    short_row.write_text(shipped[0] + "\n" + shipped[1].rsplit(",", 1)[0] + "\n")
    result = run("catalog", "list", "--catalog", str(short_row))
    assert result.stderr == f"{short_row}:2: row: 12 columns, expected 13\n"


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda row: row.replace(",8,", ",0,", 1), "gpu_count: '0' is not a GPU count (1 or more)"),
        (lambda row: _column(row, 9, "-98.32"), "on_demand_hourly: '-98.32' must be a positive"),
        (lambda row: _column(row, 9, "0"), "on_demand_hourly: '0' must be a positive number"),
        (lambda row: _column(row, 9, "NaN"), "on_demand_hourly: 'NaN' must be a positive number"),
        (lambda row: _column(row, 10, "inf"), "spot_hourly: 'inf' must be a positive number"),
        (lambda row: _column(row, 11, "x" * 200_000), "row: not a CSV row: field larger than"),
    ],
)
def test_a_catalog_with_prices_that_are_not_prices_is_refused(
    tmp_path: Path, edit: Callable[[str], str], problem: str
) -> None:
    shipped = (ROOT / "planner" / "data" / "catalog.csv").read_text().splitlines()
    bad = tmp_path / "bad.csv"
    bad.write_text(shipped[0] + "\n" + edit(shipped[1]) + "\n")
    result = run("plan", EXAMPLE, "--catalog", str(bad))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{bad}:2: {problem}"), result.stderr
    assert result.stderr.count("\n") == 1 and result.stdout == ""


def _column(row: str, index: int, value: str) -> str:
    cells = row.split(",")
    cells[index] = value
    return ",".join(cells)

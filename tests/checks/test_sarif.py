"""SARIF from gpufleet check: valid against the schema; every finding located, by a path relative
to the repository's root (wherever the check ran from; the program's directory outside a
repository) and percent-encoded; rules that say what each policy is; suppressed and baselined
findings as SARIF suppressions; within GitHub code scanning's limits, saying what it left out."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import jsonschema
import pytest
from click.testing import CliRunner

from gpufleet.checks import sarif
from gpufleet.checks.analyzer_protocol import PackInfo, PolicyInfo
from gpufleet.checks.check_run import SourceLocation, SourceRoot, Suppressed
from gpufleet.checks.sarif import SARIF_SUBSET_SCHEMA, SOURCE_ROOT, sarif_output
from gpufleet.checks.stack_check import CheckOutcome
from gpufleet.cli.main import main
from gpufleet.policies.policy_builders import help_url
from gpufleet.policies.rules import all_policies
from gpufleet.policy_tags import COST, SECURITY
from tests.checks.check_runs import BAD, BAD_FINDINGS, DEV_CONFIG, bad, gpufleet
from tests.checks.reports import SECURE, THRIFTY, finding, report
from tests.helpers import ROOT

SCHEMA = json.loads(SARIF_SUBSET_SCHEMA.read_text())


def validate(log: dict[str, Any]) -> None:
    jsonschema.validate(log, SCHEMA, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)


def uris(log: dict[str, Any]) -> set[str]:
    return {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in log["runs"][0]["results"]
    }


@pytest.fixture(scope="module")
def bad_sarif(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("sarif") / "check.sarif"
    result = bad("--format", "sarif", "--output", str(out))
    assert result.returncode == 1 and result.stdout == "", result.stderr
    return json.loads(out.read_text())


def test_sarif_is_valid_and_located(bad_sarif: dict[str, Any], bad_json: dict) -> None:
    validate(bad_sarif)
    run = bad_sarif["runs"][0]
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} >= {p for p, _ in BAD_FINDINGS}
    assert len(run["results"]) == len(bad_json["findings"])
    assert {r["level"] for r in run["results"]} == {"error"}
    located = [r["locations"][0]["physicalLocation"] for r in run["results"]]
    assert all(loc["region"]["startLine"] >= 1 for loc in located)
    assert {loc["artifactLocation"]["uriBaseId"] for loc in located} == {SOURCE_ROOT}
    assert uris(bad_sarif) == {
        f"{BAD}/__main__.py",
        f"{BAD}/Pulumi.dev.yaml",  # stack-wide results (the budget)
    }
    # The repository's root, in words only: no path of this machine in the log.
    assert run["originalUriBaseIds"] == {
        SOURCE_ROOT: {
            "description": {"text": "The root of the git repository holding the program."}
        }
    }
    assert str(ROOT) not in json.dumps(bad_sarif)
    # Not compared with a baseline, nothing suppressed: said on every result (SARIF 3.27.23).
    assert all(r["suppressions"] == [] and "baselineState" not in r for r in run["results"])


def test_rules_say_what_each_policy_is(bad_sarif: dict[str, Any]) -> None:
    rules = bad_sarif["runs"][0]["tool"]["driver"]["rules"]
    for rule in rules:
        assert rule["shortDescription"]["text"] != rule["fullDescription"]["text"], rule["id"]
        assert rule["helpUri"] == help_url(rule["id"])
        tags = rule["properties"]["tags"]
        assert tags in ([SECURITY], [COST]), rule["id"]
        # A security severity makes code scanning treat results as security alerts: only
        # for the security policies.
        if tags == [SECURITY]:
            assert 0 < float(rule["properties"]["security-severity"]) <= 10
        else:
            assert "security-severity" not in rule["properties"]
    security = {r["id"] for r in rules if r["properties"]["tags"] == [SECURITY]}
    fired = {policy for policy, _ in BAD_FINDINGS}
    assert security == {
        p.name for p in all_policies() if SECURITY in (p.tags or []) and p.name in fired
    }, "the security policies firing on the bad program (BAD_FINDINGS, tests/checks/check_runs.py)"


def test_paths_are_the_same_from_a_subdirectory(bad_sarif: dict[str, Any]) -> None:
    result = gpufleet(
        "check", "--env", "dev", "--program", str(ROOT / BAD),
        "--policy-config", str(ROOT / DEV_CONFIG), "--format", "sarif",
        cwd=ROOT / "tests" / "checks",
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert uris(json.loads(result.stdout)) == uris(bad_sarif)


def test_paths_outside_a_repository_and_in_one(tmp_path: Path) -> None:
    """A program in a folder whose name needs encoding: outside any repository its paths are
    relative to its own folder, given as a file URI; in a repository, to the repository."""
    folder = tmp_path / "my stacks ü#1"
    shutil.copytree(ROOT / BAD, folder)
    args = ["check", "--env", "dev", "--program", str(folder), "--format", "sarif"]
    args += ["--policy-config", str(ROOT / DEV_CONFIG)]

    outside = gpufleet(*args, cwd=tmp_path)
    assert outside.returncode == 1, outside.stderr
    log = json.loads(outside.stdout)
    validate(log)
    assert uris(log) == {"__main__.py", "Pulumi.dev.yaml"}
    base = log["runs"][0]["originalUriBaseIds"][SOURCE_ROOT]["uri"]
    assert base == folder.resolve().as_uri() + "/"
    assert "my%20stacks%20%C3%BC%231/" in base

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    inside = gpufleet(*args, cwd=folder)
    assert inside.returncode == 1, inside.stderr
    log = json.loads(inside.stdout)
    validate(log)
    assert uris(log) == {
        "my%20stacks%20%C3%BC%231/__main__.py",
        "my%20stacks%20%C3%BC%231/Pulumi.dev.yaml",
    }
    assert {unquote(uri) for uri in uris(log)} == {
        "my stacks ü#1/__main__.py",
        "my stacks ü#1/Pulumi.dev.yaml",
    }
    assert "uri" not in log["runs"][0]["originalUriBaseIds"][SOURCE_ROOT]
    assert str(tmp_path) not in inside.stdout


def test_baselined_and_suppressed_findings_are_sarif_suppressions(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    written = bad("--write-baseline", str(baseline), "--format", "json")
    assert written.returncode == 1, written.stderr
    config = json.loads((ROOT / DEV_CONFIG).read_text())
    config["aml-scale-to-zero"] = {
        "suppressions": [{"resource": "always-on", "reason": "warm pool for the demo week"}]
    }
    (tmp_path / "dev.json").write_text(json.dumps(config))
    result = gpufleet(
        "check", "--env", "dev", "--program", BAD, "--policy-config", str(tmp_path / "dev.json"),
        "--baseline", str(baseline), "--format", "sarif",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    log = json.loads(result.stdout)
    validate(log)
    results = log["runs"][0]["results"]
    by_justification = {r["suppressions"][0]["justification"] for r in results}
    assert by_justification == {f"in the baseline {baseline}", "warm pool for the demo week"}
    assert {(s["kind"], s["status"]) for r in results for s in r["suppressions"]} == {
        ("external", "accepted")
    }
    (suppressed,) = [r for r in results if r["baselineState"] == "new"]
    assert suppressed["ruleId"] == "aml-scale-to-zero"
    assert suppressed["message"]["text"].startswith("always-on (azure-native:")
    # Located at the program line that made the resource, as a finding would be.
    assert suppressed["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        f"{BAD}/__main__.py"
    )
    assert {r["baselineState"] for r in results if r is not suppressed} == {"unchanged"}


def test_a_path_is_percent_encoded() -> None:
    path = "stacks dir/ü#1%/[x]:y.py"
    log = json.loads(sarif_output(report([finding("a", path=path)])).text)
    validate(log)
    (uri,) = uris(log)
    assert uri == "stacks%20dir/%C3%BC%231%25/%5Bx%5D%3Ay.py"
    assert unquote(uri) == path


def test_a_finding_without_location_points_at_the_fallback() -> None:
    made = report([finding("a", path=None)], fallback_path="stacks/Pulumi.dev.yaml")
    log = json.loads(sarif_output(made).text)
    (result,) = log["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]
    assert location == {
        "artifactLocation": {"uri": "stacks/Pulumi.dev.yaml", "uriBaseId": SOURCE_ROOT},
        "region": {"startLine": 1},
    }


def test_outside_a_repository_the_base_is_the_programs_folder(tmp_path: Path) -> None:
    made = report([finding("a")])
    made.root = SourceRoot(tmp_path / "a b", repository=False)
    log = json.loads(sarif_output(made).text)
    validate(log)
    assert log["runs"][0]["originalUriBaseIds"][SOURCE_ROOT]["uri"] == (
        (tmp_path / "a b").as_uri() + "/"
    )


def test_over_the_results_limit_the_most_severe_are_kept_and_the_cut_said() -> None:
    advisories = [finding(f"r{i}", policy=THRIFTY) for i in range(sarif.MAX_RESULTS)]
    made = report([*advisories, finding("worst")])
    output = sarif_output(made)
    assert (output.results, output.left_out) == (sarif.MAX_RESULTS, 1)
    log = json.loads(output.text)
    run = log["runs"][0]
    assert len(run["results"]) == sarif.MAX_RESULTS
    # The one error is kept (first); an advisory is what went.
    assert run["results"][0]["message"]["text"].startswith("worst ")
    assert [r["level"] for r in run["results"]].count("error") == 1
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is True
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "warning"
    assert note["message"]["text"].startswith("1 of 25,001 results left out")
    assert output.note == note["message"]["text"]


def test_over_the_size_limit_results_are_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sarif, "MAX_GZIP_BYTES", 60_000)
    # Messages that do not compress: random bytes, hex-encoded.
    noisy = [finding(f"r{i}", message=os.urandom(400).hex()) for i in range(200)]
    output = sarif_output(report(noisy))
    assert len(gzip.compress(output.text.encode())) <= 60_000
    assert 0 < output.results < 200 and output.results + output.left_out == 200
    log = json.loads(output.text)
    validate(log)
    assert len(log["runs"][0]["results"]) == output.results
    notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert notes[0]["message"]["text"].startswith(f"{output.left_out} of 200 results left out")


def test_suppressions_and_baseline_states() -> None:
    kept, known = finding("new-one"), finding("old-one")
    quiet = Suppressed(
        SECURE.name,
        "urn:pulumi:dev::p::aws:ec2/instance:Instance::quiet",
        "a bastion, reviewed",
        resource_type="aws:ec2/instance:Instance",
        resource_name="quiet",
        location=SourceLocation("__main__.py", 9),
    )
    made = report([kept], baselined=[known], suppressed=[quiet], baseline="b.json")
    log = json.loads(sarif_output(made).text)
    validate(log)
    results = {r["message"]["text"].split(" ")[0]: r for r in log["runs"][0]["results"]}
    assert results["new-one"]["suppressions"] == []
    assert results["new-one"]["baselineState"] == "new"
    assert results["old-one"]["suppressions"] == [
        {"kind": "external", "status": "accepted", "justification": "in the baseline b.json"}
    ]
    assert results["old-one"]["baselineState"] == "unchanged"
    assert results["quiet"]["suppressions"] == [
        {"kind": "external", "status": "accepted", "justification": "a bastion, reviewed"}
    ]
    assert results["quiet"]["locations"][0]["physicalLocation"]["region"] == {"startLine": 9}
    # What is suppressed comes after what is not.
    assert list(results) == ["new-one", "old-one", "quiet"]


def test_a_pack_without_titles_still_gets_distinct_descriptions() -> None:
    plain = PolicyInfo("plain", "One sentence only.", "mandatory", {}, False, "")
    two = PolicyInfo("two", "Short first. Then the details.", "mandatory", {}, False, "")
    made = report([])
    made.pack = PackInfo("other", "1", (plain, two), {})
    rules = json.loads(sarif_output(made).text)["runs"][0]["tool"]["driver"]["rules"]
    described = {
        r["id"]: (r["shortDescription"]["text"], r["fullDescription"]["text"]) for r in rules
    }
    assert described == {
        "plain": ("plain", "One sentence only."),
        "two": ("Short first.", "Short first. Then the details."),
    }
    # No help page, no tags, no severity from this pack: none claimed.
    assert all("helpUri" not in r and r["properties"]["tags"] == [] for r in rules)


def test_the_cli_says_on_stderr_what_sarif_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sarif, "MAX_RESULTS", 5)
    made = report([finding(f"r{i}") for i in range(7)])
    monkeypatch.setattr(
        "gpufleet.checks.stack_check.check_stack",
        lambda request: CheckOutcome(made, None, None),
    )
    result = CliRunner().invoke(main, ["check", "--env", "dev", "--format", "sarif"])
    assert result.exit_code == 1, result.output
    assert len(json.loads(result.stdout)["runs"][0]["results"]) == 5
    assert result.stderr.startswith("SARIF: 2 of 7 results left out, the least severe")


def test_brackets_in_names_and_messages_are_not_embedded_links() -> None:
    """In a SARIF message "[text](target)" links to a location or a URL: a resource named so by
    the program under review must read as written, not link anywhere."""
    hostile = finding("[x](https://evil.example)", message="see [t](3) and a\\[b]")
    text = json.loads(sarif_output(report([hostile])).text)["runs"][0]["results"][0]
    message = text["message"]["text"]
    assert "\\[x\\](https://evil.example)" in message and "\\[t\\](3)" in message
    assert "a\\\\\\[b\\]" in message  # a backslash before a bracket is doubled, then escaped

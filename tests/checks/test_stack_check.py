"""gpufleet check end to end: the program captured offline, the pack started as a plugin process
and driven through the Analyzer gRPC protocol, exports, suppressions, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufleet.checks.stack_check import CheckRequest, check_stack
from gpufleet.cli.main import CHECK_FORMATS
from gpufleet.engine.program_dir import run_program_dir
from gpufleet.policies.pack import PACK_DIR
from gpufleet.policies.rules import all_policies
from tests.checks.check_runs import (
    BAD,
    BAD_FINDINGS,
    DEV_CONFIG,
    TEMPLATE_LINE,
    bad,
    gpufleet,
    own_stack_findings,
)
from tests.helpers import EXAMPLE_ENVS, ROOT


@pytest.mark.parametrize("env", EXAMPLE_ENVS)
def test_example_stacks_pass(env: str) -> None:
    result = gpufleet("check", "--env", env, "--format", "json")
    assert result.returncode == 0, own_stack_findings(result.stdout) + result.stderr
    report = json.loads(result.stdout)
    assert report["summary"]["mandatory"] == 0
    assert report["resources"] > 20 and len(report["policies"]) == len(all_policies())


def test_example_stack_passes_in_a_preview() -> None:
    result = gpufleet("check", "--env", "prod", "--preview", "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["preview"] is True


def test_bad_program_every_policy_fires(bad_json: dict) -> None:
    found = {(f["policy"], f["name"]) for f in bad_json["findings"]}
    assert found == BAD_FINDINGS, (
        f"{BAD}: found and not in BAD_FINDINGS (tests/checks/check_runs.py, where a new "
        f"policy's findings on it are listed): {sorted(found - BAD_FINDINGS)}; listed and not "
        f"found: {sorted(BAD_FINDINGS - found)}"
    )
    assert {f["level"] for f in bad_json["findings"]} == {"mandatory"}
    template = next(f for f in bad_json["findings"] if f["name"] == "train-template")
    # Nested in the user's own component, located at the program line that created it.
    assert "acme:ml:TrainingStack$aws:ec2/launchTemplate" in template["urn"]
    assert template["location"] == {"path": f"{BAD}/__main__.py", "line": TEMPLATE_LINE}


def test_the_pack_served_by_grpc_server_finds_the_same(bad_json: dict) -> None:
    # The pack serves with UnaryServer unless told otherwise; grpc.server (what PolicyPack
    # uses) must give the same report, finding for finding.
    result = bad("--format", "json", env={"GPUFLEET_PACK_SERVER": "grpc"})
    assert result.returncode == 1, result.stderr
    assert json.loads(result.stdout)["findings"] == bad_json["findings"]


def test_unknown_pack_server_is_an_input_error() -> None:
    result = bad(env={"GPUFLEET_PACK_SERVER": "fast"})
    assert result.returncode == 2
    assert "GPUFLEET_PACK_SERVER='fast': expected one of unary, grpc" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_program_table(bad_json: dict) -> None:
    result = bad()
    assert result.returncode == 1
    assert f"{len(bad_json['findings'])} mandatory violation(s)" in result.stdout
    assert "train-template" in result.stdout


def test_suppression_in_config(tmp_path: Path) -> None:
    config = json.loads((ROOT / DEV_CONFIG).read_text())
    config["aml-scale-to-zero"] = {
        "suppressions": [{"resource": "always-on", "reason": "warm pool for the demo week"}]
    }
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(config))
    result = gpufleet(
        "check", "--env", "dev", "--program", BAD, "--policy-config", str(path), "--format", "json"
    )
    report = json.loads(result.stdout)
    assert ("aml-scale-to-zero", "always-on") not in {
        (f["policy"], f["name"]) for f in report["findings"]
    }
    assert [s["reason"] for s in report["suppressed"]] == ["warm pool for the demo week"]


def test_a_suppression_reason_over_several_lines_prints_as_one(tmp_path: Path) -> None:
    """In CI a line of output starting "::error" is an annotation: a reason in the policy config
    must not be able to start one, and the line names the resource as the report does."""
    config = json.loads((ROOT / DEV_CONFIG).read_text())
    reason = "warm pool\n::error file=README.md::forged annotation"
    config["aml-scale-to-zero"] = {"suppressions": [{"resource": "always-on", "reason": reason}]}
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(config))
    result = gpufleet("check", "--env", "dev", "--program", BAD, "--policy-config", str(path))
    lines = (result.stdout + result.stderr).splitlines()
    assert not [line for line in lines if line.startswith("::")]
    assert "suppressed aml-scale-to-zero on always-on: warm pool ::error" in result.stdout


def test_from_export_gives_the_same_findings(tmp_path: Path, bad_json: dict) -> None:
    """With its project's stack config (the budget is in it), and without: an export from
    another project than --program's is checked without that project's config."""
    export = tmp_path / "stack.json"
    made = gpufleet("preview", "--env", "dev", "--program", BAD, "--export", str(export))
    assert made.returncode == 0, made.stderr

    def findings(*program: str) -> set[tuple[str, str]]:
        result = gpufleet(
            "check", "--env", "dev", "--from-export", str(export), *program,
            "--policy-config", DEV_CONFIG, "--format", "json",
        )  # fmt: skip
        assert result.returncode == 1, result.stderr
        return {(f["policy"], f["name"]) for f in json.loads(result.stdout)["findings"]}

    assert findings("--program", BAD) == BAD_FINDINGS
    # Without it, no budget: nothing for gpu-budget to hold the stack to.
    assert findings() == {f for f in BAD_FINDINGS if f[0] != "gpu-budget"}


def test_transform_tags_are_seen(tmp_path: Path) -> None:
    config = tmp_path / "team.json"
    config.write_text(json.dumps({"required-tags": {"keys": ["team", "managed-by"]}}))
    result = gpufleet(
        "check",
        "--env",
        "dev",
        "--program",
        "tests/programs/plain_aws",
        "--policy-config",
        str(config),
        "--format",
        "json",
    )
    report = json.loads(result.stdout)
    assert [f for f in report["findings"] if f["policy"] == "required-tags"] == []
    assert report["resources"] >= 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check"], "give --env ENV"),
        (["check", "--env", "dev", "--program", "tests"], "no Pulumi.yaml"),
        (["check", "--env", "prdo"], "stacks/Pulumi.prdo.yaml: no such stack config"),
        (["check", "--env", "dev", "--from-export", "README.md"], "not valid JSON"),
        (["check", "--env", "dev", "--policy-pack", "tests"], "no PulumiPolicy.yaml"),
    ],
)
def test_bad_input_exits_2(args: list[str], message: str) -> None:
    result = gpufleet(*args)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_bad_policy_config_names_file_line_and_field(tmp_path: Path) -> None:
    config = tmp_path / "bad.json"
    config.write_text('{\n  "all": "mandatory",\n  "gpu-budget": {"monthlyBudgetUsd": "lots"}\n}\n')
    result = gpufleet("check", "--env", "dev", "--policy-config", str(config))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"{config}:3: gpu-budget.monthlyBudgetUsd: 'lots' is not of type 'number'"
    ]


def test_an_in_process_check_leaves_the_runtime_able_to_capture_again() -> None:
    """check_stack is a library call too: after it, a capture in the same process still runs."""
    request = CheckRequest(stack="dev", program=ROOT / BAD, pack_dir=PACK_DIR)
    first = check_stack(request)
    assert first.report.mandatory
    again = run_program_dir(ROOT / BAD, "dev")
    assert len(again.registrations) == first.report.resource_count


def test_secret_values_a_policy_quotes_are_masked_in_every_format(tmp_path: Path) -> None:
    """Policies read secrets in plain text, as under the engine; what they quote of one reads
    [secret] in every report, the baseline and the terminal, however the policy spells it
    (lower case, a URL's last segment)."""
    (tmp_path / "Pulumi.yaml").write_text("name: secretive\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text(
        "config:\n  gcp:project: acme-ml-dev\n  gcp:region: us-central1\n"
    )
    (tmp_path / "__main__.py").write_text(
        "import pulumi\n"
        "import pulumi_aws as aws\n"
        "import pulumi_gcp as gcp\n"
        "gcp.compute.Instance('mega', machine_type=pulumi.Output.secret("
        "'projects/acme-ml-dev/zones/us-central1-a/machineTypes/A2-MEGAGPU-16G'),"
        " zone='us-central1-a', boot_disk={'initialize_params': {'image': 'debian-12'}},"
        " network_interfaces=[{'network': 'default'}])\n"
        "aws.s3.Bucket('ckpt-store', acl=pulumi.Output.secret('public-read'))\n"
        "aws.ec2.Instance('big', instance_type=pulumi.Output.secret('P9.ZEBRA77.96XLARGE'),"
        " ami='ami-1')\n"
    )
    baseline = tmp_path / "baseline.json"
    outputs = []
    for fmt in CHECK_FORMATS:
        args = ["check", "--env", "dev", "--program", str(tmp_path), "--format", fmt]
        if fmt == "json":
            args += ["--write-baseline", str(baseline)]
        result = gpufleet(*args, env={"GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")})
        assert result.returncode == 1, result.stderr
        outputs += [result.stdout, result.stderr]
    outputs += [baseline.read_text(), (tmp_path / "summary.md").read_text()]
    report = json.loads(outputs[2])
    quoted = [f["message"] for f in report["findings"] if "[secret]" in f["message"]]
    assert len(quoted) >= 3, report["findings"]  # the machine types and the ACL
    for text in outputs:
        for secret in ("a2-megagpu-16g", "public-read", "p9.zebra77.96xlarge"):
            assert secret not in text.lower()

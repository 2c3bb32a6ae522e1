"""``gpufleet cost`` as users run it: the example's table, JSON a script (and a later
``--compare-to``) can read, the pull-request comment against a golden file, GitHub workflow
commands and job summary, the exit status, and bad input as one line with exit 2.

The golden comment is ``golden/cost_comment.md``: a pull request that grows an Auto Scaling
group, removes a GCP VM, adds a reserved pool and an unknown GPU type. After a deliberate
change to the comment, rewrite it with ``GPUFLEET_UPDATE_GOLDEN=1 pytest tests/cli``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from gpufleet.capacity.cost_report import check_report
from gpufleet.cli.main import COST_FORMATS, main
from gpufleet.engine.program_dir import run_program_dir
from gpufleet.engine.stack_export import write_deployment
from gpufleet.github_text import ANNOTATIONS_PER_KIND, COMMENT_LIMIT, SUMMARY_LIMIT
from tests.helpers import ROOT

PROGRAM = ROOT / "tests" / "programs" / "gpu_costs"
GOLDEN = Path(__file__).parent / "golden" / "cost_comment.md"


def cost(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, ["cost", *args], env=env)


def test_the_example_table_and_its_json() -> None:
    table = cost("--env", "prod")
    assert table.exit_code == 0, table.output
    assert "total" in table.stdout and "pretrain-llm-node-0" in table.stdout
    assert "budget $150,000.00/month for the expected cost" in table.stdout
    data = json.loads(cost("--env", "prod", "--format", "json").stdout)
    check_report(data, "stdout")
    assert data["totals"]["plan_monthly_usd"] is not None


@pytest.fixture(scope="module")
def base_export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("base") / "base.json"
    write_deployment(run_program_dir(PROGRAM, "base"), path)
    return path


def head(*args: str, env: dict[str, str] | None = None) -> Result:
    return cost("--program", str(PROGRAM), "--stack", "head", *args, env=env)


def test_the_pull_request_comment_matches_the_golden_file(base_export: Path) -> None:
    result = head("--compare-to", str(base_export), "--format", "markdown")
    assert result.exit_code == 0, result.output
    if os.environ.get("GPUFLEET_UPDATE_GOLDEN"):
        GOLDEN.write_text(result.stdout)
    assert result.stdout == GOLDEN.read_text()
    # What a reviewer reads first: the totals, then the largest changes, details folded.
    text = result.stdout
    assert text.index("/month expected**") < text.index("**Largest changes**")
    assert text.index("**Largest changes**") < text.index("<details>")


def test_json_with_a_diff_and_a_saved_report_as_the_next_base(
    base_export: Path, tmp_path: Path
) -> None:
    saved = tmp_path / "head.json"
    result = head("--compare-to", str(base_export), "--format", "json", "--output", str(saved))
    assert result.exit_code == 0 and result.stdout == ""
    data = json.loads(saved.read_text())
    assert data["diff"]["delta"]["expected_monthly_usd"] == pytest.approx(
        data["totals"]["expected"]["monthly_usd"] - data["diff"]["base"]["expected_monthly_usd"],
        abs=0.011,
    )
    assert {r["name"]: r["status"] for r in data["diff"]["resources"]}["tuning-vm"] == "removed"
    again = head("--compare-to", str(saved), "--format", "markdown")
    assert "No GPU resource changes cost." in again.stdout


def test_github_commands_and_job_summary(base_export: Path, tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    result = head(
        "--compare-to",
        str(base_export),
        "--format",
        "github",
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("::warning title=gpufleet cost head::mystery: cannot be priced")
    assert lines[-1].startswith("::notice title=gpufleet cost head::head: $")
    assert summary.read_text() == GOLDEN.read_text() + "\n"


def test_over_budget_or_unpriced_under_a_budget_exits_1(tmp_path: Path) -> None:
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"gpu-budget": {"monthlyBudgetUsd": 1_000_000}}))
    # Within budget, but a GPU it cannot price: gpu-budget would fail it, so cost does.
    unpriced = head("--policy-config", str(config))
    assert unpriced.exit_code == 1 and "unpriced: mystery" in unpriced.stdout
    config.write_text(json.dumps({"gpu-budget": {"monthlyBudgetUsd": 1000}}))
    over = cost("--env", "prod", "--policy-config", str(config), "--format", "markdown")
    assert over.exit_code == 1 and ":x: budget \\$1,000.00/month" in over.stdout


def test_a_worst_case_cap_holds_the_maximum_figure_as_the_budget_policy_does(
    tmp_path: Path,
) -> None:
    """Groups parked at zero cost nothing expected: the cap on the maximum figure still sees
    them, in every format and the exit status, as gpu-budget does."""
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"gpu-budget": {"worstCaseMonthlyUsd": 20000}}))
    table = cost("--env", "prod", "--policy-config", str(config))
    assert table.exit_code == 1
    assert re.search(
        r"worst-case cap \$20,000\.00/month for the maximum cost .*over by", table.stdout
    )
    data = json.loads(
        cost("--env", "prod", "--policy-config", str(config), "--format", "json").stdout
    )
    check_report(data, "report")  # the schema knows the cap
    assert data["worst_case_cap"]["estimate"] == "maximum"
    assert data["totals"]["over_worst_case_cap_usd"] > 0
    assert data["totals"]["over_budget_usd"] is None  # the expected figure is within budget
    markdown = cost("--env", "prod", "--policy-config", str(config), "--format", "markdown")
    assert ":x: worst-case cap \\$20,000.00/month" in markdown.stdout
    config.write_text(json.dumps({"gpu-budget": {"worstCaseMonthlyUsd": 10_000_000}}))
    assert cost("--env", "prod", "--policy-config", str(config)).exit_code == 0


GPUFLEET = [sys.executable, "-m", "gpufleet", "cost"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from-export", "{bad}"], ": not valid JSON:"),
        (["--compare-to", "{bad}"], ": not valid JSON:"),
        (["--env", "prdo"], "stacks/Pulumi.prdo.yaml: no such stack config"),
        ([], "give --env ENV (or --stack NAME): which stack to price"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{ nope")
    argv = [a.replace("{bad}", str(bad)) for a in args]
    if "--env" not in argv:
        argv = [*argv, "--env", "prod"] if args else argv
    result = subprocess.run(
        [*GPUFLEET, *argv], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 2, result.stderr
    assert result.stdout == "" and "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert message in line


HOSTILE_NAME = "gpu|</details>`@acme/ml-team`[x](https://evil.example)"


def test_names_from_the_program_cannot_break_or_abuse_the_comment(tmp_path: Path) -> None:
    """The program is the pull request's: a resource name must not end a cell or the details,
    open a link, ping a team, or inject a workflow command."""
    (tmp_path / "Pulumi.yaml").write_text("name: hostile\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-1\n")
    (tmp_path / "__main__.py").write_text(
        "import pulumi_aws as aws\n"
        f"aws.ec2.Instance({HOSTILE_NAME!r}, instance_type='g6.xlarge', ami='ami-1',"
        " tags={'workload': 'w|x\\n::error::forged'})\n"
        f"aws.ec2.Instance('p9|@acme/ml-team', instance_type='p9.96xlarge', ami='ami-1')\n"
    )
    args = ("--program", str(tmp_path), "--stack", "dev")
    comment = cost(*args, "--format", "markdown").stdout
    assert comment.count("</details>") == 1 and comment.rstrip().endswith("</details>")
    assert "@acme" not in comment and not re.search(r"(?<!\\)\]\(", comment)  # no link
    for row in (line for line in comment.splitlines() if "gpu" in line and line.startswith("|")):
        assert row.count("|") - row.count("\\|") == 8, row  # 7 cells, none split
    commands = cost(*args, "--format", "github").stdout.splitlines()
    assert all(line.startswith(("::warning ", "::notice ", "::error ")) for line in commands)
    assert not any("::error::forged" in line for line in commands)


def test_totals_say_what_they_leave_out_and_unpriced_under_a_budget_is_an_error(
    tmp_path: Path,
) -> None:
    table = head()
    assert "total (not counting 1 unpriced GPU resource)" in table.stdout
    comment = head("--format", "markdown").stdout
    assert "/month expected** (not counting 1 unpriced GPU resource)" in comment
    plain = head("--format", "github").stdout.splitlines()
    assert plain[0].startswith("::warning ") and "not counting 1 unpriced" in plain[-1]
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"gpu-budget": {"monthlyBudgetUsd": 1_000_000}}))
    budgeted = head("--format", "github", "--policy-config", str(config))
    assert budgeted.exit_code == 1
    assert budgeted.stdout.splitlines()[0].startswith(
        "::error title=gpufleet cost head::mystery: cannot be priced"
    )


def test_a_diff_says_when_its_totals_leave_out_unpriced_resources(base_export: Path) -> None:
    comment = head("--compare-to", str(base_export), "--format", "markdown").stdout
    assert ":warning: Totals leave out GPU resources without a price: 0 in the base, 1 in this" in (
        comment
    )


def test_files_that_cannot_be_written_are_one_line_exit_2(tmp_path: Path) -> None:
    blocked = tmp_path / "summary-dir"
    blocked.mkdir()
    result = subprocess.run(
        [*GPUFLEET, "--env", "dev", "--format", "github"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "GITHUB_STEP_SUMMARY": str(blocked)},
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"{blocked} ($GITHUB_STEP_SUMMARY): cannot write:")
    unwritable = tmp_path / "no" / "such" / "dir"
    (tmp_path / "no").write_text("a file, not a folder")
    result = subprocess.run(
        [*GPUFLEET, "--env", "dev", "--output", str(unwritable)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"{unwritable}: cannot write:")


@pytest.mark.parametrize("option", ["--from-export", "--compare-to", "--policy-config"])
def test_a_fifo_given_as_a_file_is_refused_not_waited_on(tmp_path: Path, option: str) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    result = subprocess.run(
        [*GPUFLEET, "--env", "dev", option, str(fifo)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "not a regular file" in line


def test_an_advisory_budget_warns_and_exits_0(tmp_path: Path) -> None:
    config = tmp_path / "policy.json"
    config.write_text(
        json.dumps({"gpu-budget": {"enforcementLevel": "advisory", "monthlyBudgetUsd": 1000}})
    )
    result = cost("--env", "prod", "--policy-config", str(config), "--format", "github")
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert first.startswith("::warning title=gpufleet cost prod::budget (advisory) $1,000.00")
    comment = cost("--env", "prod", "--policy-config", str(config), "--format", "markdown")
    assert comment.exit_code == 0 and ":warning: budget (advisory) \\$1,000.00" in comment.stdout


def test_a_job_summary_that_is_not_a_file_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / "summary"
    os.mkfifo(fifo)
    output = tmp_path / "out.txt"
    result = subprocess.run(
        [*GPUFLEET, "--env", "dev", "--format", "github", "--output", str(output)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "GITHUB_STEP_SUMMARY": str(fifo)},
    )
    assert result.returncode == 2, result.stderr
    assert (
        result.stderr.strip() == f"{fifo} ($GITHUB_STEP_SUMMARY): cannot write: not a regular file"
    )
    assert not output.exists()


def test_runs_started_outside_the_stack_are_per_run_not_zero(tmp_path: Path) -> None:
    """A SageMaker job template without the plan's expected use: one run, shown per run."""
    (tmp_path / "Pulumi.yaml").write_text("name: jobs\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-1\n")
    (tmp_path / "__main__.py").write_text(
        "from gpufleet.components.aws.sagemaker_spot_training import (\n"
        "    SageMakerSpotTraining, SageMakerSpotTrainingArgs)\n"
        "from gpufleet.components.tagging import RequiredTags\n"
        "tags = RequiredTags(project='p', owner='o', cost_center='c', environment='dev',\n"
        "                    workload='ranker')\n"
        "SageMakerSpotTraining('ranker', SageMakerSpotTrainingArgs(tags=tags,\n"
        "    instance_type='ml.g5.12xlarge', image_uri='123456789012.dkr.ecr.us-east-1."
        "amazonaws.com/train:1'))\n"
    )
    table = cost("--program", str(tmp_path), "--stack", "dev").stdout
    (row,) = [line for line in table.splitlines() if line.startswith("│ ranker ")]
    assert row.count("per run") == 3 and "0.00" not in row.split("│")[5]


def test_a_stack_with_nothing_priced_says_so_not_zero(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: unknown-gpus\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-1\n")
    (tmp_path / "__main__.py").write_text(
        "import pulumi_aws as aws\naws.ec2.Instance('p9', instance_type='p9.96xlarge', ami='a')\n"
    )
    args = ("--program", str(tmp_path), "--stack", "dev")
    comment = cost(*args, "--format", "markdown").stdout
    assert comment.splitlines()[2].startswith("**unpriced expected** (not counting 1 unpriced")
    assert "$0.00" not in comment
    notice = cost(*args, "--format", "github").stdout.splitlines()[-1]
    assert "unpriced expected, unpriced maximum" in notice


def test_a_comment_and_a_job_summary_stay_within_githubs_limits(tmp_path: Path) -> None:
    """GitHub refuses a comment body over 65,536 characters and shows nothing of a step summary
    over 1 MiB: rows past them are left out, and both the text and stderr say how many."""
    (tmp_path / "Pulumi.yaml").write_text("name: many\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-1\n")
    (tmp_path / "__main__.py").write_text(
        "import pulumi_aws as aws\n"
        "for i in range(600):\n"
        "    aws.ec2.Instance(f'{i:03}-' + 'n' * 120, instance_type='g6.xlarge', ami='ami-1',"
        " tags={'workload': f'w{i % 50}'})\n"
    )
    args = ("--program", str(tmp_path), "--stack", "dev")
    comment = cost(*args, "--format", "markdown")
    assert comment.exit_code == 0, comment.output
    size = len(comment.stdout.encode())
    assert COMMENT_LIMIT - 1024 < size <= COMMENT_LIMIT
    left = re.search(r"\*\*(\d+) row\(s\) left out", comment.stdout)
    assert left is not None and f"markdown: {left.group(1)} row(s) left out" in comment.stderr
    shown = comment.stdout.count("| <code>")
    assert shown + int(left.group(1)) >= 600  # every resource is a row, shown or counted
    assert comment.stdout.rstrip().endswith("</details>")
    assert "| w49 |" in comment.stdout  # the workload table, first to keep, is whole

    summary = tmp_path / "summary.md"
    summary.write_text("z" * (SUMMARY_LIMIT - 30_000))  # an earlier command of the same step
    github = cost(*args, "--format", "github", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert github.exit_code == 0, github.output
    assert SUMMARY_LIMIT - 1024 < summary.stat().st_size <= SUMMARY_LIMIT
    assert "job summary: " in github.stderr and "row(s) left out" in github.stderr


def test_github_annotations_stop_at_what_github_shows_and_say_how_many_more(
    tmp_path: Path,
) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: unpriced\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-1\n")
    (tmp_path / "__main__.py").write_text(
        "import pulumi_aws as aws\n"
        "for i in range(25):\n"
        "    aws.ec2.Instance(f'u{i}', instance_type='p9.96xlarge', ami='ami-1')\n"
    )
    result = cost("--program", str(tmp_path), "--stack", "dev", "--format", "github")
    lines = result.stdout.splitlines()
    warnings = [line for line in lines if line.startswith("::warning ")]
    assert len(warnings) == ANNOTATIONS_PER_KIND, lines
    assert lines[-1].startswith("::notice ")
    assert "15 unpriced resource(s) not annotated" in lines[-1]


def _secretive(folder: Path, program: str) -> None:
    """A project whose ``__main__.py`` is ``program`` after pulumi's and the AWS SDK's imports,
    with a dev stack on AWS and GCP."""
    (folder / "Pulumi.yaml").write_text("name: secretive\nruntime: python\n")
    (folder / "Pulumi.dev.yaml").write_text(
        "config:\n  aws:region: us-east-1\n  gcp:project: acme\n  gcp:region: us-central1\n"
    )
    (folder / "__main__.py").write_text("import pulumi\nimport pulumi_aws as aws\n" + program)


def _in_every_format(args: tuple[str, ...], summary: Path) -> list[str]:
    """What cost prints in each format (table, json, markdown, github), then the job summary."""
    outputs = []
    for fmt in COST_FORMATS:
        result = cost(*args, "--format", fmt, env={"GITHUB_STEP_SUMMARY": str(summary)})
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    return [*outputs, summary.read_text()]


def test_a_secret_machine_type_is_priced_but_never_shown(tmp_path: Path) -> None:
    _secretive(
        tmp_path,
        "aws.ec2.Instance('trainer', instance_type=pulumi.Output.secret('g6.xlarge'),"
        " ami='ami-1')\n",
    )
    args = ("--program", str(tmp_path), "--stack", "dev")
    outputs = _in_every_format(args, tmp_path / "summary.md")
    assert all("g6.xlarge" not in text for text in outputs)
    assert "1 x [secret]" in outputs[0]
    priced = json.loads(outputs[1])["totals"]["expected"]["monthly_usd"]
    assert priced > 500  # priced from the real machine: 730 h of a g6.xlarge
    # A base export's secrets too: the diff names the machine each side ran.
    main_py = tmp_path / "__main__.py"
    main_py.write_text(main_py.read_text().replace("g6.xlarge", "g6.2xlarge"))
    base = tmp_path / "base.json"
    write_deployment(run_program_dir(tmp_path, "dev"), base)
    main_py.write_text(main_py.read_text().replace("g6.2xlarge", "g6.xlarge"))
    for fmt in ("table", "json", "markdown"):
        result = cost(*args, "--compare-to", str(base), "--format", fmt)
        assert result.exit_code == 0, result.output
        assert "g6.2xlarge" not in result.output and "g6.xlarge" not in result.output
    assert r"\[secret\]" in result.output  # as markdown writes it


def test_a_secret_is_masked_however_cost_spells_it_and_before_escaping(tmp_path: Path) -> None:
    """Cost shows machine types in lower case and GCP's by their URL's last segment, and
    escapes names for markdown and workflow commands: a secret is masked before all of it."""
    _secretive(
        tmp_path,
        "import pulumi_gcp as gcp\n"
        "team = pulumi.Output.secret('wl_zq__x|y<b>&z`t\\x1b[0m\\u202e')\n"
        "aws.ec2.Instance('big', instance_type=pulumi.Output.secret('P4DE.24XLARGE'),"
        " ami='ami-1', tags={'workload': team})\n"
        "aws.ec2.Instance('odd', instance_type='g6.xlarge', ami='ami-1',"
        " tags={'workload': team, 'market': pulumi.Output.secret('on_demand')})\n"
        "gcp.compute.Instance('mega', machine_type=pulumi.Output.secret("
        "'projects/acme/zones/us-central1-a/machineTypes/a2-ultragpu-8g'),"
        " zone='us-central1-a', boot_disk={'initialize_params': {'image': 'debian-12'}},"
        " network_interfaces=[{'network': 'default'}],"
        " scheduling={'on_host_maintenance': 'TERMINATE'})\n",
    )
    args = ("--program", str(tmp_path), "--stack", "dev")
    outputs = _in_every_format(args, tmp_path / "summary.md")
    for text in outputs:
        lowered = text.lower()
        assert "p4de" not in lowered and "a2-ultragpu" not in lowered, text
        assert "zq" not in lowered, text  # the workload, escaped (markdown, terminal) or not
    # A secret equal to one of gpufleet's words leaves the word alone.
    assert all("on_demand" in text for text in outputs[:3])
    report = json.loads(outputs[1])
    assert "[secret]" in {w["name"] for w in report["workloads"]}
    clouds = {r["cloud"] for w in report["workloads"] for r in w["resources"]}
    assert clouds == {"aws", "gcp"}  # gpufleet's words stay, so a saved report reads back
    assert check_report(report, "report.json") == report


def test_a_secret_one_digit_size_is_masked_in_its_own_line(tmp_path: Path) -> None:
    _secretive(
        tmp_path,
        "lt = aws.ec2.LaunchTemplate('lt', instance_type='p5.48xlarge', image_id='ami-1')\n"
        "aws.autoscaling.Group('asg', min_size=2, max_size=pulumi.Output.secret(7),"
        " desired_capacity=3, availability_zones=['us-east-1a'],"
        " launch_template={'id': lt.id, 'version': '$Latest'})\n",
    )
    args = ("--program", str(tmp_path), "--stack", "dev")
    table, _, markdown, *_ = _in_every_format(args, tmp_path / "summary.md")
    assert "3..[secret] x p5.48xlarge" in table
    assert r"3..\[secret\] x p5.48xlarge" in markdown
    check = CliRunner().invoke(main, ["check", *args, "--format", "json"])
    messages = " ".join(f["message"] for f in json.loads(check.stdout)["findings"])
    assert "[secret] x" in messages and "7 x" not in messages


def test_held_commitments_change_the_price_and_bad_declarations_are_exit_2(
    tmp_path: Path,
) -> None:
    """The head stack declares a commitment for its reservation (site:commitments); one from a
    --commitments file counts the same; a declaration that is not one is one line, exit 2."""
    held = json.loads(head("--format", "json").stdout)
    (reservation,) = [
        r for w in held["workloads"] for r in w["resources"] if r["name"] == "serving-reservation"
    ]
    assert reservation["commitments"] == ["ri-serving"] and reservation["uncommitted_usd"] == 0
    bad = tmp_path / "held.json"
    bad.write_text('{"version": 1,\n "commitments": [{"cloud": "aws", "term": "1y"}]}')
    refused = head("--commitments", str(bad))
    assert refused.exit_code == 2
    assert refused.stderr.splitlines() == [
        f"{bad}:2: commitments[0].id: required",
        f"{bad}:2: commitments[0].kind: required",
    ]
    program = tmp_path / "program"
    program.mkdir()
    for name in ("Pulumi.yaml", "__main__.py", "Pulumi.head.yaml"):
        (program / name).write_text((PROGRAM / name).read_text())
    config = program / "Pulumi.head.yaml"
    config.write_text(config.read_text().replace("term: 1y", "term: 2y"))
    stack = cost("--program", str(program), "--stack", "head")
    assert stack.exit_code == 2
    # The line of the entry in the stack config file, read again for it.
    assert stack.stderr.strip() == f"{config}:11: site:commitments[0].term: one of 1y, 3y"

"""``gpufleet scale`` as users run it on the example's stacks: bad input is one line per
problem and exit 2, before any cloud is asked (and before any cloud SDK is imported); what a
run did renders as text and JSON. The runs themselves are tested against local cloud APIs in
tests/runs/."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner, Result

from gpufleet.cli import scale_render
from gpufleet.cli.main import main
from gpufleet.runs.part_change import PartChange
from gpufleet.runs.run_duration import RunWindow
from gpufleet.runs.scale_run import ScaleOutcome
from tests.helpers import ROOT


def scale(*args: str) -> Result:
    return CliRunner().invoke(main, ["scale", *args])


@pytest.mark.parametrize(
    ("args", "lines"),
    [
        (
            ["nope", "--env", "prod", "--to", "1", "--for", "8h"],
            [
                "no workload 'nope' in environment prod; workloads: chat-serving, eval-harness, "
                "nightly-embeddings, office-assistant, pretrain-llm, ranker-train, "
                "support-bot-finetune, weekly-regression"
            ],
        ),
        (
            ["eval-harness", "--env", "prod", "--to", "2", "--for", "8h"],
            [
                "--to 2: eval-harness may run at most 1 instance(s) on request "
                "(gcp:SpotGroup up to 1)"
            ],
        ),
        (
            ["eval-harness", "--env", "prod", "--to", "1"],
            [
                "--to 1 needs --for DURATION (such as 8h): how long the run may last before its "
                "capacity returns to zero"
            ],
        ),
        (
            ["eval-harness", "--env", "prod", "--to", "1", "--for", "8 hours"],
            [
                "--for '8 hours' is not a duration: write days, hours and minutes such as 8h, 90m, "
                "1h30m or 2d"
            ],
        ),
        (
            ["eval-harness", "--env", "prod", "--to", "1", "--for", "31d"],
            ["--for '31d' is 31d; a run lasts from 5m to 30d"],
        ),
        (
            ["eval-harness", "--env", "prod", "--to", "0", "--for", "8h"],
            ["--for does not go with --to 0: scaling to zero ends the run"],
        ),
        (
            ["chat-serving", "--to", "1", "--for", "8h"],
            ["give --env ENV (or --stack NAME): which stack's workload to scale"],
        ),
        (
            ["nope", "--env", "nowhere", "--to", "1", "--for", "8h"],
            [
                "stacks/Pulumi.nowhere.yaml: no such stack config; gpufleet generate SPEC --env "
                "nowhere writes it"
            ],
        ),
    ],
)
def test_bad_input_is_one_line_per_problem(args: list[str], lines: list[str]) -> None:
    result = scale(*args)
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == lines
    assert result.stdout == ""


def test_every_problem_is_reported_at_once() -> None:
    result = scale("ranker-train", "--env", "prod", "--to", "1")
    assert result.exit_code == 2
    assert [line.split(":")[0] for line in result.stderr.splitlines()] == [
        "ranker-train",
        "--to 1 needs --for DURATION (such as 8h)",
    ]
    assert "start a training job" in result.stderr


def test_nodes_and_managed_clusters_say_how_they_are_used() -> None:
    result = scale("nightly-embeddings", "--env", "prod", "--to", "1", "--for", "1h")
    assert result.exit_code == 2
    assert result.stderr.startswith("nightly-embeddings: azure:LowPriorityCluster is an Azure ML")


def test_a_negative_count_is_refused_by_the_option() -> None:
    result = scale("eval-harness", "--env", "prod", "--to", "-1", "--for", "1h")
    assert result.exit_code == 2
    assert "-1 is not in the range x>=0" in result.stderr


def test_bad_input_imports_no_cloud_sdk_and_help_no_run_code() -> None:
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from gpufleet.cli.main import main\n"
        "CliRunner().invoke(main, ['--help'])\n"
        "help_loaded = sorted(m for m in sys.modules if m.startswith('gpufleet.runs'))\n"
        "result = CliRunner().invoke(main, ['scale', 'eval-harness', '--env', 'prod', "
        "'--to', '5', '--for', '1h'])\n"
        "assert result.exit_code == 2, result.output\n"
        "sdks = ('boto3', 'botocore', 'azure', 'google.cloud', 'google.auth', 'google.api_core')\n"
        "heavy = sorted(m for m in sys.modules if m.startswith(sdks))\n"
        "print(help_loaded, heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[] []"


def outcome(until: datetime | None) -> ScaleOutcome:
    start = datetime(2026, 11, 23, 18, 0, tzinfo=UTC)
    return ScaleOutcome(
        environment="prod",
        workload="eval-harness",
        cloud="gcp",
        region="us-central1",
        count=1 if until else 0,
        window=RunWindow(start, until),
        changes=[
            PartChange(
                "gcp:SpotGroup",
                1 if until else 0,
                ("eval-harness-group-1", "eval-harness-autoscaler-2"),
                "scaling schedule gpufleet-run holds 1 VM(s) until 2026-11-24 02:00 UTC",
            )
        ],
    )


def test_a_run_rendered() -> None:
    run = outcome(datetime(2026, 11, 24, 2, 0, tzinfo=UTC))
    assert scale_render.render(run, "text").splitlines() == [
        "eval-harness (prod, gcp us-central1): 1 instance(s) until 2026-11-24 02:00 UTC (8h)",
        "  gcp:SpotGroup eval-harness-group-1, eval-harness-autoscaler-2: 1 instance(s); "
        "scaling schedule gpufleet-run holds 1 VM(s) until 2026-11-24 02:00 UTC",
    ]
    data = json.loads(scale_render.render(run, "json"))
    assert data["until"] == "2026-11-24T02:00:00+00:00"
    assert data["start"] == "2026-11-23T18:00:00+00:00"
    assert data["parts"][0]["resources"] == ["eval-harness-group-1", "eval-harness-autoscaler-2"]
    assert datetime.fromisoformat(data["until"]) - datetime.fromisoformat(
        data["start"]
    ) == timedelta(hours=8)


def test_an_ended_run_rendered() -> None:
    text = scale_render.render(outcome(None), "text")
    assert text.startswith("eval-harness (prod, gcp us-central1): scaled to 0, run ended\n")
    assert json.loads(scale_render.render(outcome(None), "json"))["until"] is None


def test_help_states_the_durations_a_run_takes() -> None:
    """--help says the bounds parse_duration enforces (written out there: the help stays fast
    without importing the runs)."""
    from gpufleet.runs.run_duration import MAX_DURATION, MIN_DURATION

    minutes, days = int(MIN_DURATION.total_seconds()) // 60, MAX_DURATION.days
    text = " ".join(scale("--help").output.split())
    assert f"({minutes} minutes to {days} days)" in text

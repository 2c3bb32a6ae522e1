"""``gpufleet rightsize`` on the seed story: 40 A100s serving at 20% average utilization with a
fraction of their memory used, measured by nvidia-smi and by DCGM; what it recommends, that
the rewritten spec plans at or below the story's $84K, that --write keeps the user's text, and
that samples too few or too old are said so, never judged."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpufleet.cli.main import main
from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.optimizer import Planner
from gpufleet.planner.spec_loader import load_spec
from tests.rightsizing import samples

STORY_TARGET_USD = 84_000

# On-demand only (no commitments), 40 A100s: 5 p4d.24xlarge, $119,620 a month.
ONE_EACH = """\
# The seed story's serving: forty A100s, busy a fifth of the time.
version: 1
project: seed
owner: ml@acme.example
cost_center: cc-1
environments:
  prod: {max_commitment: none}
defaults:
  clouds: [aws]
  regions: {aws: [us-east-1]}
workloads:
  - name: serving
    kind: inference
    gpu: {name: A100, count: 1}   # one A100 a replica
    always_on: true
    replicas: {min: 40, max: 40}
"""
# The same forty GPUs as five replicas of eight.
EIGHT_EACH = ONE_EACH.replace("count: 1}   # one A100 a replica", "count: 8}").replace(
    "{min: 40, max: 40}", "{min: 5, max: 5}"
)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["rightsize", *args])
    return result.exit_code, result.stdout, result.stderr


def planned(spec: Path) -> float:
    catalog = load_catalog()
    return Planner(load_spec(spec, catalog), catalog).plan_environment("prod").monthly_usd


@pytest.mark.parametrize("text", [ONE_EACH, EIGHT_EACH], ids=["one-gpu", "eight-gpus"])
@pytest.mark.parametrize("source", ["nvidia-smi", "dcgm"])
def test_the_seed_story_is_rightsized_under_its_target(
    tmp_path: Path, text: str, source: str
) -> None:
    spec = tmp_path / "seed.yaml"
    spec.write_text(text)
    before = planned(spec)
    assert before > STORY_TARGET_USD
    if source == "nvidia-smi":
        csv = samples.nvidia_smi(tmp_path / "gpu.csv", gpus=8, hours=72, mean=20, memory_mib=6500)
        usage = f"serving={csv}"
    else:
        usage = str(
            samples.dcgm(
                tmp_path / "dcgm.prom",
                workload="serving",
                hosts=5,
                gpus=8,
                hours=72,
                mean=20,
                memory_mib=6500,
            )
        )
    code, out, err = run(str(spec), "--usage", usage, "--format", "json", "--write")
    assert code == 0, err
    (row,) = json.loads(out)["workloads"]
    assert row["judged"] and 15 <= row["utilization_p50"] <= 25
    assert row["memory_p95_gib"] < 8
    words = row["recommendation"]
    assert any(w in words for w in ("share GPUs", "fewer replicas", "fewer GPUs")), words
    after = planned(spec)
    assert after <= STORY_TARGET_USD
    assert row["recommended_monthly_usd"] == pytest.approx(after, abs=0.01)
    assert row["saving_usd"] == pytest.approx(before - after, abs=0.01)
    # The user's comment and layout stay; only the changed keys are new text.
    written = spec.read_text()
    assert written.startswith("# The seed story's serving")
    assert "  - name: serving\n    kind: inference\n" in written


def test_too_few_too_short_or_too_old_samples_are_not_judged(tmp_path: Path) -> None:
    spec = tmp_path / "seed.yaml"
    spec.write_text(ONE_EACH)
    cases = {
        "few": samples.nvidia_smi(tmp_path / "few.csv", gpus=1, hours=2, mean=20, memory_mib=6500),
        "old": samples.nvidia_smi(
            tmp_path / "old.csv",
            gpus=8,
            hours=72,
            mean=20,
            memory_mib=6500,
            end=time.time() - 30 * 86400,
        ),
        "short": samples.nvidia_smi(
            tmp_path / "short.csv", gpus=8, hours=6, mean=20, memory_mib=6500, every=60
        ),
    }
    reasons = {
        "few": "utilization samples; at least 100",
        "old": "days old; at most 14 days",
        "short": "at least 24 h are needed",
    }
    for case, path in cases.items():
        code, out, err = run(str(spec), "--usage", f"serving={path}", "--format", "json", "--write")
        assert code == 0, err
        (row,) = json.loads(out)["workloads"]
        assert not row["judged"] and reasons[case] in row["not_judged_reason"], row
        assert row["changes"] == {} and row["saving_usd"] == 0
    assert spec.read_text() == ONE_EACH  # nothing judged, nothing written


def test_busy_machines_are_kept(tmp_path: Path) -> None:
    spec = tmp_path / "seed.yaml"
    spec.write_text(ONE_EACH)
    busy = samples.nvidia_smi(tmp_path / "busy.csv", gpus=8, hours=48, mean=85, memory_mib=36000)
    code, out, _ = run(str(spec), "--usage", f"serving={busy}", "--format", "json")
    (row,) = json.loads(out)["workloads"]
    assert code == 0 and row["recommendation"].startswith("keep") and row["changes"] == {}


def test_idle_work_on_request_is_given_fewer_hours(tmp_path: Path) -> None:
    spec = tmp_path / "jobs.yaml"
    header = ONE_EACH.split("workloads:\n")[0]
    sweep = "  - {name: sweep, kind: training, gpu: {name: A100, count: 8}, hours_per_month: 400}\n"
    spec.write_text(header + "workloads:\n" + sweep)
    # Busy a quarter of the time it runs: mostly idle between epochs.
    idle = samples.nvidia_smi(tmp_path / "sweep.csv", gpus=8, hours=48, mean=2, memory_mib=30000)
    busy = samples.nvidia_smi(tmp_path / "sweep2.csv", gpus=8, hours=16, mean=90, memory_mib=30000)
    code, out, err = run(
        str(spec), "--usage", f"sweep={idle}", "--usage", f"sweep={busy}", "--format", "json"
    )
    assert code == 0, err
    (row,) = json.loads(out)["workloads"]
    assert "fewer hours" in row["recommendation"] and row["changes"]["hours_per_month"] < 400


def test_samples_of_no_workload_are_said(tmp_path: Path) -> None:
    spec = tmp_path / "seed.yaml"
    spec.write_text(ONE_EACH)
    other = samples.dcgm(
        tmp_path / "o.prom",
        workload="elsewhere",
        hosts=1,
        gpus=1,
        hours=30,
        mean=20,
        memory_mib=100,
    )
    bare = samples.dcgm(
        tmp_path / "b.prom", workload=None, hosts=1, gpus=1, hours=30, mean=20, memory_mib=100
    )
    code, out, err = run(str(spec), "--usage", str(other), "--usage", str(bare))
    assert code == 0
    assert "samples of 'elsewhere' match no workload" in err
    assert "samples name no workload" in err
    assert "not judged: no samples matched it" in out


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("x,y\n", ":1: file: not nvidia-smi CSV"),
        ("index, timestamp\n", ":1: file: not nvidia-smi CSV"),
        (
            samples.HEADER + "2026/11/20 10:00:00.000, 0, abc %, 1 MiB, 2 MiB\n",
            ":2: utilization.gpu: not a",
        ),
        (samples.HEADER + "2026/11/20 10:00:00.000, 0, 120 %, 1 MiB, 2 MiB\n", "is over 100"),
        (samples.HEADER + "2026/13/20 10:00:00.000, 0, 12 %, 1 MiB, 2 MiB\n", "not a timestamp"),
        (samples.HEADER + "2026/11/20 10:00:nan, 0, 12 %, 1 MiB, 2 MiB\n", "not a timestamp"),
        ('DCGM_FI_DEV_GPU_UTIL{gpu="0"} 1 ' + "9" * 400 + "\n", ":1: sample: not a timestamp"),
        ('DCGM_FI_DEV_GPU_UTIL{gpu="0"} 1 -5\n', ":1: sample: not a timestamp"),
        (
            samples.HEADER + "2026/11/20 10:00:00.000, 0, 12 %, 2000000 MiB, 2 MiB\n",
            ":2: memory.used: memory.used 2e+06 is over 1048576",
        ),
        (
            'DCGM_FI_DEV_FB_USED{gpu="0"} 2e6 1\n',
            ":1: DCGM_FI_DEV_FB_USED: 2e+06 MiB used is more than any GPU has",
        ),
        (samples.HEADER + "2026/11/20 10:00:00.000, 0\n", ":2: row: 2 columns"),
        ("timestamp, utilization.gpu\n", ":1: header: the header lacks index, memory.used"),
        ("2026/11/20 10:00:00.000, 0, 1 %, 1 MiB\n", "not nvidia-smi CSV"),
        (samples.HEADER + "1" * 70_000 + "\n", ":2: row: 1 columns"),
        (samples.HEADER + "1" * 200_000, ":2: file: a line longer than"),
        (
            '# TYPE x gauge\nDCGM_FI_DEV_GPU_UTIL{gpu="0",workload="serving"} nope 1\n',
            ":2: DCGM_FI_DEV_GPU_UTIL: not a sample value",
        ),
        (
            'DCGM_FI_DEV_FB_USED{gpu="0"} 1 1\nDCGM_FI_DEV_GPU_UTIL{gpu="0"} 101 1\n',
            ":2: DCGM_FI_DEV_GPU_UTIL: utilization 101 is over 100",
        ),
        ('DCGM_FI_DEV_GPU_UTIL{gpu="0" 1 1\n', ":1: sample: a sample whose labels do not close"),
        ("DCGM_FI_DEV_GPU_UTIL 1 2 3\n", ":1: sample: a sample that does not parse"),
        ("# ok\n%%% nonsense\n", ":2: sample: not a Prometheus text sample"),
        ('DCGM_FI_DEV_GPU_UTIL{gpu="0" workload} 1 1\n', "labels that do not parse"),
    ],
)
def test_bad_samples_are_one_line_naming_file_and_line(
    tmp_path: Path, content: str, words: str
) -> None:
    spec = tmp_path / "seed.yaml"
    spec.write_text(ONE_EACH)
    bad = tmp_path / "bad.txt"
    bad.write_text(content)
    code, out, err = run(str(spec), "--usage", f"serving={bad}")
    assert code == 2 and out == ""
    (line,) = err.splitlines()
    assert line.startswith(str(bad)) and words in line, line


def test_a_fifo_or_a_missing_file_is_one_line(tmp_path: Path) -> None:
    import os

    spec = tmp_path / "seed.yaml"
    spec.write_text(ONE_EACH)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, words in ((fifo, "not a regular file"), (tmp_path / "none.csv", "cannot read")):
        code, _, err = run(str(spec), "--usage", f"serving={path}")
        assert code == 2 and words in err and len(err.splitlines()) == 1
    code, _, err = run(str(spec))
    assert code == 2 and "needs samples" in err


def test_a_header_again_right_after_a_header_is_read(tmp_path: Path) -> None:
    """A collector restarted before its first row leaves two headers in a row."""
    spec = tmp_path / "seed.yaml"
    spec.write_text(ONE_EACH)
    csv = samples.nvidia_smi(tmp_path / "gpu.csv", gpus=8, hours=30, mean=20, memory_mib=6500)
    text = csv.read_text()
    csv.write_text(samples.HEADER + text + samples.HEADER + samples.HEADER + text.split("\n", 1)[1])
    code, out, err = run(str(spec), "--usage", f"serving={csv}", "--format", "json")
    assert code == 0, err
    (row,) = json.loads(out)["workloads"]
    assert row["judged"] and row["samples"] == 2 * (len(text.splitlines()) - 1)


def test_write_changes_only_the_workload_judged_where_yaml_shares_a_value(tmp_path: Path) -> None:
    """An anchor shared by two workloads: the change is made to the judged one's own copy."""
    spec = tmp_path / "shared.yaml"
    spec.write_text(
        EIGHT_EACH.split("workloads:\n")[0]
        + "workloads:\n"
        + "  - {name: serving, kind: inference, gpu: &g {name: A100, count: 8}, always_on: true,\n"
        + "     replicas: {min: 5, max: 5}}\n"
        + "  - {name: other, kind: inference, gpu: *g, always_on: true}\n"
    )
    csv = samples.nvidia_smi(tmp_path / "gpu.csv", gpus=8, hours=30, mean=20, memory_mib=6500)
    code, _, err = run(str(spec), "--usage", f"serving={csv}", "--write", "--format", "json")
    assert code == 0, err
    written = load_spec(spec, load_catalog())
    serving, other = written.workloads
    assert serving.gpu != other.gpu or serving.replicas != other.replicas
    assert other.gpu.count == 8 and other.replicas is None

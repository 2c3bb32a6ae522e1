"""scripts/cost_comment.py, as the pull-request workflow runs it: the base branch's checkout
captured by its own gpufleet, this branch's ``gpufleet cost`` against it, per environment, in
one comment that starts with the marker the workflow finds it by."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from tests.helpers import ROOT

SCRIPT = ROOT / "scripts" / "cost_comment.py"
GPUFLEET = str(Path(sys.executable).with_name("gpufleet"))


def base_checkout(tmp_path: Path) -> Path:
    """The project as a base branch would have it: eval-harness ran two VMs in prod, and
    there was no dev stack yet."""
    base = tmp_path / "base"
    shutil.copytree(ROOT / "stacks", base / "stacks", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "Pulumi.yaml", base / "Pulumi.yaml")
    (base / "stacks" / "Pulumi.dev.yaml").unlink()
    prod = base / "stacks" / "Pulumi.prod.yaml"
    config = yaml.safe_load(prod.read_text())
    (harness,) = [w for w in config["config"]["gpufleet:workloads"] if w["name"] == "eval-harness"]
    harness["parts"][0]["instances"] = 2
    prod.write_text(yaml.safe_dump(config))
    return base


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_comment_has_every_environment_against_its_base(tmp_path: Path) -> None:
    out = tmp_path / "comment.md"
    result = run(
        "--base", str(base_checkout(tmp_path)), "--base-gpufleet", GPUFLEET,
        "--env", "prod", "--env", "dev", "--output", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    assert text.startswith("<!-- gpufleet-cost -->\n### gpufleet cost: <code>prod</code>")
    prod, dev = text.split("### gpufleet cost: <code>dev</code>")
    # One eval VM fewer than the base: the largest change, a saving.
    change = "| eval-harness | <code>eval-harness-group</code> | expected instances 2 -&gt; 1;"
    assert change in prod
    assert "against the base)" in prod
    assert "No base to compare with: the base branch's <code>dev</code> stack:" in dev
    assert "no such stack config" in dev


def test_a_comment_too_long_for_github_drops_the_details() -> None:
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        from cost_comment import LIMIT, MARKER, comment  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(SCRIPT.parent))
    short = comment(["totals\n<details>rows</details>\n"])
    assert short == f"{MARKER}\ntotals\n<details>rows</details>\n"
    long = comment(["totals\n<details>" + "x" * LIMIT + "</details>\n"] * 2)
    assert len(long) < LIMIT and long.count("totals") == 2 and "<details>" not in long
    assert "Details left out to fit a comment" in long
    # Totals alone too long (hundreds of workloads in each environment): lines past the limit.
    rows = "".join(f"| w{i} | 1.00 |\n" for i in range(6000))
    longer = comment([f"totals\n{rows}<details>x</details>\n"] * 2)
    assert LIMIT - 100 < len(longer) <= LIMIT and longer.startswith(MARKER)
    left = re.search(r"_(\d+) line\(s\) left out to fit a comment", longer)
    assert left is not None and len(longer.splitlines()) + int(left.group(1)) > 12_000

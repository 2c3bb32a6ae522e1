"""A stack config larger than one environment variable may be (128 KiB on Linux) reaches the
program and the policy pack: handed over in a file the helper removes once read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gpufleet.engine.helper_environment import helper_environment
from gpufleet.engine.parent_death import ENVIRONMENT_FILE
from tests.checks.check_runs import gpufleet
from tests.helpers import ROOT


def test_the_helper_gets_the_values_and_the_file_is_gone(tmp_path: Path) -> None:
    big = "x" * 300_000  # over execve's 128 KiB for one variable
    with helper_environment(os.environ, {"BIG": big}) as env:
        name = env[ENVIRONMENT_FILE]
        assert "BIG" not in env and Path(name).stat().st_mode & 0o077 == 0
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                "import os, sys; from gpufleet.engine.parent_death import load_environment_file;"
                "load_environment_file();"
                "print(len(os.environ['BIG']), os.path.exists(sys.argv[1]))",
                name,
            ],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout.split() == ["300000", "False"]  # read, then removed by the helper
    assert not Path(name).exists()


def test_check_and_cost_run_a_stack_config_over_128_kib(tmp_path: Path) -> None:
    stack = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text()
    note = "n" * 140_000
    config = tmp_path / "Pulumi.prod.yaml"
    config.write_text(stack.replace("config:\n", f'config:\n  site:note: "{note}"\n', 1))
    assert config.stat().st_size > 128 * 1024
    checked = gpufleet("check", "--env", "prod", "--config", str(config), "--format", "json")
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["resources"] > 0
    priced = gpufleet("cost", "--env", "prod", "--config", str(config), "--format", "json")
    assert priced.returncode in (0, 1), priced.stderr
    assert "Traceback" not in priced.stderr

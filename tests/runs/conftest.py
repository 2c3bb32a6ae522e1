"""Fixtures for runs: a stack config with a workload of every kind, and the CLI on it (the
local Compute Engine and Resource Manager APIs are the root conftest's)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner, Result

from gpufleet.cli.main import main
from tests.helpers import ROOT
from tests.runs.stack_files import (
    ENVIRONMENT,
    write_stack_config,
)

if TYPE_CHECKING:
    pass

Scale = Callable[..., Result]


@pytest.fixture
def stack_config(tmp_path: Path) -> Path:
    return write_stack_config(tmp_path)


@pytest.fixture
def scale(stack_config: Path) -> Scale:
    """``gpufleet scale ARGS`` on the test stack config, in this process."""

    def run(*args: str) -> Result:
        return CliRunner().invoke(
            main,
            [
                "scale",
                *args,
                "--program",
                str(ROOT),
                "--config",
                str(stack_config),
                "--env",
                ENVIRONMENT,
            ],
        )

    return run


@pytest.fixture
def runs(stack_config: Path) -> Scale:
    """``gpufleet runs ARGS`` on the test stack config, in this process."""

    def run(*args: str) -> Result:
        where = ["--program", str(ROOT), "--config", str(stack_config), "--env", ENVIRONMENT]
        return CliRunner().invoke(main, ["runs", *args, *where])

    return run

"""Fixtures every test module may use: a price snapshot folder, spec files written from text."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import Snapshot


@pytest.fixture
def snapshot(tmp_path: Path) -> Snapshot:
    return Snapshot(tmp_path / "snapshot")


@pytest.fixture
def write_spec(tmp_path: Path) -> Callable[[str], Path]:
    """Write spec YAML (dedented) to a file and return its path."""

    def write(text: str, name: str = "spec.yaml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    return write

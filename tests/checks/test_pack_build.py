"""``gpufleet pack DIR``: the policy pack, self-contained, runs where gpufleet is not installed
and finds what the repository's pack finds.

The built pack is started as the Pulumi CLI starts a pack (``python -m pulumi.policy``) from a
directory outside the repository, with an interpreter that cannot see gpufleet: ``-S`` (no
site, so no editable install), the third-party packages on ``PYTHONPATH`` and nothing else,
an empty environment. Its findings on the bad program must be the repository pack's."""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

import pytest

from gpufleet.checks.check_run import run_check
from gpufleet.checks.policy_pack_process import PolicyPackProcess
from gpufleet.engine.analyzer_resources import from_capture
from gpufleet.engine.program_dir import run_program_dir
from gpufleet.policies.pack import PACK_DIR
from tests.checks.check_runs import BAD, DEV_CONFIG, gpufleet
from tests.helpers import ROOT


def findings(
    pack: Path,
    python: tuple[str, ...] = (sys.executable,),
    environment: dict[str, str] | None = None,
) -> set[tuple[str, str, str]]:
    capture = run_program_dir(ROOT / BAD, "dev")
    resources = from_capture(capture)
    started = PolicyPackProcess(
        pack,
        project=capture.project,
        stack="dev",
        dry_run=False,
        config=capture.config,
        python=python,
        environment=environment,
    )
    report = run_check(
        resources,
        pack_dir=pack,
        policy_config=ROOT / DEV_CONFIG,
        project=capture.project,
        stack="dev",
        dry_run=False,
        stack_config=capture.config,
        started=started,
    )
    return {(f.policy, f.resource_name, f.message) for f in report.findings}


def test_the_built_pack_runs_without_gpufleet_and_finds_the_same(tmp_path: Path) -> None:
    out = tmp_path / "pack"
    done = gpufleet("pack", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(f"{out}: policy pack written (")
    requirements = (out / "requirements.txt").read_text().splitlines()
    assert {r.split("<")[0].split(">")[0] for r in requirements} >= {"pulumi", "pulumi-policy"}
    assert not any(r.startswith(("pulumi-aws", "boto3", "click", "rich")) for r in requirements)
    assert "virtualenv: venv" in (out / "PulumiPolicy.yaml").read_text()
    # Outside the repository, gpufleet invisible to the interpreter.
    site_packages = sysconfig.get_paths()["purelib"]
    alone = findings(
        out,
        python=(sys.executable, "-S"),
        environment={"PYTHONPATH": site_packages, "PATH": "/usr/bin:/bin"},
    )
    assert alone == findings(PACK_DIR)
    assert len(alone) >= 10


def test_the_pack_is_not_written_over_a_directory_in_use(tmp_path: Path) -> None:
    (tmp_path / "kept.txt").write_text("mine")
    done = gpufleet("pack", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"{tmp_path}: exists and is not an empty directory"]
    assert [p.name for p in tmp_path.iterdir()] == ["kept.txt"]


def test_a_pack_that_cannot_be_finished_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpufleet.policies import pack_build

    def fail_after_some_files(staging: Path, *_: object) -> list[str]:
        (staging / "__main__.py").write_text("half a pack")
        raise OSError(28, "No space left on device", str(staging / "config"))

    monkeypatch.setattr(pack_build, "_write_pack", fail_after_some_files)
    out = tmp_path / "pack"
    with pytest.raises(pack_build.PackBuildError, match="No space left on device"):
        pack_build.build_pack(out)
    assert list(tmp_path.iterdir()) == []  # neither the pack nor its staging folder


def test_a_full_disk_names_the_pack_not_the_file_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """shutil's copy errors name the source file first; a full disk is the destination's."""
    import errno
    import shutil

    from gpufleet.policies import pack_build

    def full_disk(source: object, target: object, **_: object) -> None:
        error = OSError(errno.ENOSPC, "No space left on device")
        error.filename, error.filename2 = str(source), str(target)
        raise error

    monkeypatch.setattr(shutil, "copyfile", full_disk)
    out = tmp_path / "pack"
    with pytest.raises(pack_build.PackBuildError) as raised:
        pack_build.build_pack(out)
    assert str(raised.value) == f"{out}: cannot write: No space left on device"

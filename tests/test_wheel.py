"""The wheel carries every module and data file of the package folders, and works on its own:
built from this checkout, installed into a fresh venv, it plans the example."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.helpers import ROOT

# Stack configs are the example project's, not the package's: `gpufleet generate` writes them
# into the user's project.
NOT_PACKAGED = ("stacks/Pulumi.dev.yaml", "stacks/Pulumi.staging.yaml", "stacks/Pulumi.prod.yaml")


def _package_folders() -> list[Path]:
    """The folders ``gpufleet/`` links to, by following its symlinks."""
    links = [p for p in (ROOT / "gpufleet").iterdir() if p.is_symlink()]
    return sorted(p.resolve() for p in links)


def _source_files() -> set[str]:
    """Every file of the package as it should appear in the wheel (``gpufleet/...``)."""
    files = {f"gpufleet/{p.name}" for p in (ROOT / "gpufleet").iterdir() if p.is_file()}
    for folder in _package_folders():
        for path in folder.rglob("*"):
            relative = path.relative_to(ROOT).as_posix()
            if path.is_dir() or "__pycache__" in path.parts or relative in NOT_PACKAGED:
                continue
            files.add(f"gpufleet/{relative}")
    return files


def test_gpufleet_links_every_top_level_package_folder() -> None:
    linked = {p.name for p in _package_folders()}
    assert linked == {
        "planner",
        "cli",
        "components",
        "engine",
        "checks",
        "policies",
        "stacks",
        "capacity",
        "runs",
        "commitments",
        "rightsizing",
        "live_prices",
        "preflight",
    }
    for link in (ROOT / "gpufleet").iterdir():
        if link.is_symlink():
            # Relative, so the checkout can live anywhere.
            assert str(link.readlink()) == f"../{link.name}"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Built from a copy: an in-tree build would leave build/ behind, whose stale files later
    # builds would pack.
    source = tmp_path_factory.mktemp("source") / "gpufleet"
    shutil.copytree(
        ROOT,
        source,
        symlinks=True,
        ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "__pycache__"),
    )
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",  # offline: the venv's setuptools builds it
            "--wheel-dir",
            str(out),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("gpufleet-*.whl")
    return built


def test_wheel_carries_every_module_and_data_file(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        packaged = {n for n in archive.namelist() if not n.split("/", 1)[0].endswith(".dist-info")}
    assert packaged == _source_files()


def test_wheel_installed_alone_plans_the_example(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    # The dependencies come from this venv's site-packages as a plain path: its .pth files (the
    # editable install of this checkout among them) are not processed, so gpufleet can only
    # come from the wheel.
    site = next((venv / "lib").glob("python3*/site-packages"))
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work = tmp_path / "elsewhere"
    work.mkdir()
    where = subprocess.run(
        [str(python), "-c", "import gpufleet.planner.optimizer as m; print(m.__file__)"],
        check=True,
        capture_output=True,
        text=True,
        cwd=work,
    )
    assert Path(where.stdout.strip()).is_relative_to(venv)
    example = ROOT / "examples" / "workloads.yaml"
    installed = subprocess.run(
        [str(venv / "bin" / "gpufleet"), "plan", str(example), "--format", "json"],
        capture_output=True,
        text=True,
        cwd=work,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr
    here = subprocess.run(
        [sys.executable, "-m", "gpufleet", "plan", str(example), "--format", "json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    assert installed.stdout == here.stdout

"""The repository is laid out as promised, sets up with two commands, and keeps pulumi off the
planning path."""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import subprocess
import sys
import sysconfig

import yaml

from tests.helpers import ROOT


def test_promised_top_level_layout() -> None:
    for name in (
        "components",
        "stacks",
        "policies",
        "cli",
        "tests",
        "planner",
        "examples",
        "benchmarks",
    ):
        assert (ROOT / name).is_dir(), name
    for name in ("Pulumi.yaml", "pyproject.toml", "Makefile", "README.md", ".ci/run"):
        assert (ROOT / name).is_file(), name


def test_pulumi_project_file() -> None:
    project = yaml.safe_load((ROOT / "Pulumi.yaml").read_text())
    assert project["name"] == "gpufleet"
    assert project["runtime"] == {"name": "python", "options": {"virtualenv": ".venv"}}
    assert project["main"] == "stacks/"
    assert project["stackConfigDir"] == "stacks"


def test_every_package_imports_and_says_what_lives_there() -> None:
    import gpufleet

    packages = ["gpufleet"] + [
        info.name for info in pkgutil.walk_packages(gpufleet.__path__, "gpufleet.") if info.ispkg
    ]
    assert {"gpufleet.planner", "gpufleet.policies.rules", "gpufleet.components.aws"} <= set(
        packages
    )
    for name in packages:
        module = importlib.import_module(name)
        assert module.__doc__ and len(module.__doc__) > 20, name


def test_a_plain_checkout_imports_the_package_folders() -> None:
    """No editable install, no import hook: the dependencies on the path (their .pth files not
    processed) and the checkout as the working directory are enough."""
    code = "import gpufleet.planner.optimizer as m, gpufleet.policies.pack as p; print(m.__file__)"
    done = subprocess.run(
        [sys.executable, "-S", "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": sysconfig.get_paths()["purelib"]},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(ROOT / "gpufleet" / "planner" / "optimizer.py")


def test_planning_never_imports_pulumi_or_cloud_sdks() -> None:
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from gpufleet.cli.main import main\n"
        f"result = CliRunner().invoke(main, ['plan', {str(ROOT / 'examples/workloads.yaml')!r}])\n"
        "assert result.exit_code == 0, result.output\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'pulumi', 'pulumi_aws', 'pulumi_gcp', 'pulumi_azure_native', 'boto3', 'google'})\n"
        "print(heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_help_does_not_import_the_planner() -> None:
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from gpufleet.cli.main import main\n"
        "CliRunner().invoke(main, ['--help'])\n"
        "print(sorted(m for m in sys.modules if m.startswith(('gpufleet.planner', 'pydantic', "
        "'rich'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_two_command_quickstart() -> None:
    readme = (ROOT / "README.md").read_text()
    quickstart = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^make \w+", quickstart, flags=re.MULTILINE)
    assert commands == ["make demo", "make test"]
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(
        r"^demo: \$\(STAMP\)\n\t\$\(BIN\)/gpufleet plan examples/workloads\.yaml",
        makefile,
        flags=re.MULTILINE,
    )
    assert "ruff check" in makefile and "ruff format --check" in makefile and "pytest" in makefile
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_contributing_names_files_that_exist() -> None:
    """The "Changing gpufleet" recipes name real files (templates such as <cloud> aside)."""
    text = (ROOT / "CONTRIBUTING.md").read_text()
    paths = {
        token
        for token in re.findall(r"`([^`\s]+)`", text)
        if "/" in token
        and "<" not in token
        and not token.startswith(("gpufleet.", 'f"'))
        and re.fullmatch(r"[\w./-]+", token)
    }
    assert {"stacks/component_registry.py", "policies/rules/", "planner/gpus.py"} <= paths
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert missing == []

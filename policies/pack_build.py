"""The policy pack as a self-contained directory, for the Pulumi CLI outside this repository:
``pulumi policy publish`` (an organisation enforces it from Pulumi Cloud) and ``pulumi preview
--policy-pack DIR`` from any project.

``build_pack(out)`` copies the pack's entry point and config, and vendors the ``gpufleet``
modules its rules import — found by reading the import statements from ``policies/__main__.py``
and every rule (``modulefinder``), no more — with the data files of their packages (the
catalog, the taggable-types table). ``requirements.txt`` lists the third-party distributions
those modules import, with the version ranges gpufleet itself requires; ``PulumiPolicy.yaml``
has Pulumi make the pack's own virtualenv from it. Nothing else of gpufleet is needed where the
pack runs.
"""

from __future__ import annotations

import modulefinder
import pkgutil
import re
import shutil
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import gpufleet
from gpufleet.atomic_write import staged_folder
from gpufleet.policies import rules
from gpufleet.policies.pack import CONFIG_DIR, PACK_DIR

# The distribution that provides the standard library's zoneinfo data where the system has
# none (a slim container): needed by the schedules the cost engine reads.
_ZONEINFO_DATA = "tzdata"
_DATA_SUFFIXES = (".json", ".csv")
# A requirement's distribution name: what comes before its extras, version or marker.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class PackBuildError(Exception):
    """The pack cannot be written where asked (one line)."""


@dataclass(frozen=True)
class BuiltPack:
    directory: Path
    modules: tuple[str, ...]  # the gpufleet modules vendored
    requirements: tuple[str, ...]


def build_pack(out: Path) -> BuiltPack:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise PackBuildError(f"{out}: exists and is not an empty directory")
    source_root = Path(gpufleet.__file__).resolve().parent.parent
    finder = modulefinder.ModuleFinder(path=[str(source_root)])
    finder.run_script(str(PACK_DIR / "__main__.py"))
    for rule in pkgutil.iter_modules(rules.__path__):
        finder.import_hook(f"{rules.__name__}.{rule.name}")
    modules = sorted(name for name in finder.modules if name.split(".")[0] == "gpufleet")
    try:
        with staged_folder(out) as staging:
            requirements = _write_pack(staging, finder, modules)
    except OSError as exc:
        # Named as the user named it: the error's own file is a staging name beside ``out``,
        # or the source of a copy (shutil names it first even when the destination's disk is
        # full), neither of which the user wrote.
        raise PackBuildError(f"{out}: cannot write: {exc.strerror or exc}") from None
    return BuiltPack(out, tuple(modules), tuple(requirements))


def _write_pack(staging: Path, finder: modulefinder.ModuleFinder, modules: list[str]) -> list[str]:
    """Everything in the pack, into ``staging``; its requirements."""
    packages = set()
    for name in modules:
        file = getattr(finder.modules[name], "__file__", None)
        if not file:
            continue
        source = Path(file)
        is_package = source.name == "__init__.py"
        target = (
            staging.joinpath(*name.split("."), "__init__.py")
            if is_package
            else (staging.joinpath(*name.split(".")).with_suffix(".py"))
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source.resolve(), target)
        if is_package:
            packages.add((source.resolve().parent, target.parent))
    for source_dir, target_dir in packages:
        _copy_data(source_dir, target_dir)
    shutil.copyfile(PACK_DIR / "__main__.py", staging / "__main__.py")
    shutil.copytree(CONFIG_DIR, staging / "config")
    used = {name.split(".")[0] for name in finder.badmodules} | {"pulumi_policy"}
    requirements = _requirements(used)
    (staging / "requirements.txt").write_text("\n".join(requirements) + "\n", encoding="utf-8")
    (staging / "PulumiPolicy.yaml").write_text(_policy_yaml(), encoding="utf-8")
    return requirements


def _copy_data(source_dir: Path, target_dir: Path) -> None:
    """A package's data files: beside its modules, and in its ``data/`` folder."""
    for folder in (source_dir, source_dir / "data"):
        for path in folder.glob("*") if folder.is_dir() else ():
            if path.is_file() and path.suffix in _DATA_SUFFIXES:
                destination = target_dir / path.relative_to(source_dir)
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, destination)


def _requirements(imported: set[str]) -> list[str]:
    """gpufleet's own requirements (their ranges) for the distributions that provide the
    top-level modules the vendored code imports; a module several distributions share (the
    ``google`` namespace) comes with the others (protobuf with pulumi)."""
    providers = metadata.packages_distributions()
    wanted = {_normal(providers[name][0]) for name in imported if len(providers.get(name, [])) == 1}
    if "zoneinfo" in imported:
        wanted.add(_ZONEINFO_DATA)
    found = []
    for requirement in metadata.requires("gpufleet") or []:
        if ";" in requirement:
            continue  # extras (dev tools)
        found_name = _NAME.match(requirement)
        if found_name and _normal(found_name.group()) in wanted:
            found.append(requirement)
    return sorted(found)


def _normal(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def _policy_yaml() -> str:
    source = (PACK_DIR / "PulumiPolicy.yaml").read_text(encoding="utf-8")
    description = next(line for line in source.splitlines() if line.startswith("description:"))
    version = next(line for line in source.splitlines() if line.startswith("version:"))
    return (
        "# gpufleet's CrossGuard policy pack, self-contained (gpufleet pack). Publish it:\n"
        "#   pulumi policy publish <org>\n"
        "# or run it from any project:\n"
        "#   pulumi preview --policy-pack <this directory> --policy-pack-config "
        "<this directory>/config/<env>.json\n"
        f"{description}\n"
        "runtime:\n"
        "  name: python\n"
        "  options:\n"
        "    # Pulumi makes this virtualenv from requirements.txt on first use.\n"
        "    virtualenv: venv\n"
        f"{version}\n"
    )

"""Generate capacity/data/gpu_capable_types.json and sizing_types.json from the installed SDKs.

Which resource types can hold a GPU is not something to remember: every provider release adds
ways to get one (a new node pool, a new notebook, a new serving pool). The SDKs say it
themselves: a resource can carry GPUs when its arguments, or the input objects nested in them,
name a machine — an instance type, a VM size, a machine type or spec — or accelerators, GPUs,
a node configuration or attribute-based instance requirements.

The script reads the SDK sources (no imports, as ``generate_taggable_types.py`` does), follows
each resource's ``...Args`` into the ``...Args`` input classes it names, and writes, per
resource type, the property paths that matched, with the SDK versions they came from. Which of
those types gpufleet reads and why the others hold no GPUs is reviewed by hand
(``capacity/footprints/coverage.py``); a test fails while a type in the table is in neither.
The same reading writes a second table, ``capacity/data/sizing_types.json``: the types whose
arguments set capacity — minimum, maximum, desired or target capacity, size, instances,
replicas or nodes, a resize, a scalable dimension, a scaling adjustment or target tracking, the
bounds of a ``capacity`` object — with the paths that do, leaving out the GPU-capable types
(which are read as capacity themselves). Such a type sizes capacity that names no machine of its
own: an autoscaler, a scheduled action, a resize request, a managed scaling policy. Each is
classified in ``coverage.py`` too: a scaler gpufleet reads, one that holds or sizes no GPUs
(with the reason), or one not read, whose GPU target is then undetermined.

Last, it writes docs/gpu-coverage.md's table of every way to a GPU (``coverage.readme_table``,
between its markers): each type of both tables with how gpufleet treats it.

Re-run it after upgrading a provider, and after classifying a type:

    .venv/bin/python scripts/generate_gpu_capable_types.py          # write the tables and page
    .venv/bin/python scripts/generate_gpu_capable_types.py --check  # exit 1 if one is out of date
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

from sdk_tables import PACKAGES, ROOT, generate, resource_modules, sdk_versions

from gpufleet.atomic_write import atomic_write_text

TABLE = ROOT / "capacity" / "data" / "gpu_capable_types.json"
SIZING_TABLE = ROOT / "capacity" / "data" / "sizing_types.json"

# Argument names (snake case, as the SDKs spell them) that name a machine or accelerators.
MACHINE_ARGUMENT = re.compile(
    r"^(?:\w+_)?(?:instance_types?|vm_sizes?|machine_types?|machine_spec|accelerators?"
    r"|accelerator_(?:type|count|configs?)|guest_accelerators|gpus?|gpu_\w+|node_config"
    r"|instance_requirements)$"
)
# Input objects are followed this deep (GKE: cluster > node pools > node config > ...).
MAX_DEPTH = 6

# Argument names that set capacity: bounds or a target of capacity, size, instances, replicas,
# nodes, workers or tasks (``max_size``, ``min_capacity``, ``desired_count``, ``max_replicas``,
# ``maximum_core_capacity_units``, ``max_ready_capacity``), a resize, a scalable dimension, a
# scaling adjustment or target tracking. Other counts and sizes are left out (a queue's message
# size, a retry count), and a type whose own count holds machines is GPU-capable already.
SIZING_ARGUMENT = re.compile(
    r"^(?:min|max|desired)_(?:capacity|size)$|^(?:desired|minimum|maximum)_count$"
    r"|^(?!.*percent)(?:\w+_)?(?:min|max|minimum|maximum|desired|target)_(?:\w+_)?"
    r"(?:capacity|capacity_units|instances|instance_count|replicas|replica_count|nodes"
    r"|node_count|worker_count|task_count)$"
    r"|^(?:resize_by|scalable_dimension|scaling_adjustment|step_adjustments"
    r"|target_tracking_\w*configuration)$"
)
# The bounds of a ``capacity`` object (an Azure autoscale profile's ``capacity.maximum``).
SIZING_BOUND = re.compile(r"^(?:minimum|maximum|default)$")
CAPACITY_OBJECT = re.compile(r"^(?:\w+_)?capacity$")
# Sizing arguments are followed less deep: deeper ones are a data pipeline's batch sizes.
SIZING_DEPTH = 4

_CLASS = re.compile(r"^class (\w+Args):\n", re.M)
_INIT = re.compile(r"    def __init__\(__self__, \*,\n(.*?)\):", re.S)
_PARAMETER = re.compile(r"^\s+(\w+): (.*?)(?: = None)?,?$")
_NESTED = re.compile(r"'(\w+Args)'")


def _classes(text: str) -> dict[str, list[tuple[str, str]]]:
    """Each ``...Args`` class of a source file: its parameters (name, annotation)."""
    found: dict[str, list[tuple[str, str]]] = {}
    starts = list(_CLASS.finditer(text))
    for i, start in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        init = _INIT.search(text, start.end(), end)
        if init is None:
            found[start[1]] = []
            continue
        parameters = []
        for line in init.group(1).splitlines():
            parameter = _PARAMETER.match(line)
            if parameter is not None:
                parameters.append((parameter[1], parameter[2]))
        found[start[1]] = parameters
    return found


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _paths(
    parameters: list[tuple[str, str]],
    inputs: dict[str, list[tuple[str, str]]],
    matches: Callable[[str, str], bool],
    left: int,
    parent: str = "",
    memo: dict[tuple[str, str, int], list[str]] | None = None,
) -> list[str]:
    """Property paths, below these parameters, whose argument ``matches`` (its name and its
    parent's), input objects followed ``left`` levels deeper."""
    memo = {} if memo is None else memo
    paths: list[str] = []
    for name, annotation in parameters:
        if matches(name, parent):
            paths.append(_camel(name))
            continue
        if left <= 0:
            continue
        for nested in _NESTED.findall(annotation):
            # An input class is met again and again under one resource's arguments (Azure's
            # nest deeply): what lies below it is found once.
            key = (nested, name, left)
            if key not in memo:
                memo[key] = _paths(inputs.get(nested, []), inputs, matches, left - 1, name, memo)
            paths.extend(f"{_camel(name)}.{path}" for path in memo[key])
    return sorted(set(paths))


def _names_machine(name: str, _parent: str) -> bool:
    return bool(MACHINE_ARGUMENT.match(name))


def _sets_capacity(name: str, parent: str) -> bool:
    return bool(
        SIZING_ARGUMENT.match(name) or (SIZING_BOUND.match(name) and CAPACITY_OBJECT.match(parent))
    )


Arguments = tuple[str, list[tuple[str, str]], dict[str, list[tuple[str, str]]]]


@cache
def _resource_arguments() -> list[Arguments]:
    """(type token, its ``...Args`` parameters, the input classes of its module) of every
    resource of the SDKs, read once for both tables."""
    found: list[Arguments] = []
    for package in PACKAGES:
        inputs_by_dir: dict[Path, dict[str, list[tuple[str, str]]]] = {}
        for path, token, text in resource_modules(package):
            own = _classes(text)
            args = next((p for name, p in own.items() if not name.startswith("_")), None)
            if args is None:
                continue
            if path.parent not in inputs_by_dir:
                source = path.parent / "_inputs.py"
                inputs_by_dir[path.parent] = (
                    _classes(source.read_text(encoding="utf-8")) if source.exists() else {}
                )
            found.append((token, args, inputs_by_dir[path.parent]))
    return found


def _matching(matches: Callable[[str, str], bool], most: int) -> Iterator[tuple[str, list[str]]]:
    memos: dict[int, dict[tuple[str, str, int], list[str]]] = {}
    for token, args, inputs in _resource_arguments():
        paths = _paths(args, inputs, matches, most, memo=memos.setdefault(id(inputs), {}))
        if paths:
            yield token, paths


@cache
def _gpu_capable() -> dict[str, list[str]]:
    return dict(_matching(_names_machine, MAX_DEPTH))


def gpu_capable_types() -> dict[str, object]:
    return {
        "generatedBy": "scripts/generate_gpu_capable_types.py",
        "sdkVersions": sdk_versions(),
        "types": dict(sorted(_gpu_capable().items())),
    }


def sizing_types() -> dict[str, object]:
    gpu_capable = _gpu_capable()
    types = {
        token: paths
        for token, paths in _matching(_sets_capacity, SIZING_DEPTH)
        if token not in gpu_capable
    }
    return {
        "generatedBy": "scripts/generate_gpu_capable_types.py",
        "sdkVersions": sdk_versions(),
        "types": dict(sorted(types.items())),
    }


README = ROOT / "docs" / "gpu-coverage.md"


def readme_section(check: bool) -> int:
    """Write docs/gpu-coverage.md's table of every way to a GPU from the classification (read
    after the tables are written), or with ``check`` exit 1 when it differs."""
    from gpufleet.capacity.footprints.coverage import README_END, README_START, readme_table

    text = README.read_text(encoding="utf-8")
    start, end = text.find(README_START), text.find(README_END)
    if start < 0 or end < start:
        print(f"{README}: its markers for the ways to a GPU are missing", file=sys.stderr)
        return 1
    updated = text[:start] + readme_table() + text[end + len(README_END) :]
    if check:
        if updated != text:
            print(f"{README}: the ways to a GPU are out of date; run {Path(__file__).name}",
                  file=sys.stderr)  # fmt: skip
            return 1
        return 0
    atomic_write_text(README, updated)
    return 0


if __name__ == "__main__":
    status = max(
        generate(TABLE, gpu_capable_types, "GPU-capable types", __doc__ or ""),
        generate(SIZING_TABLE, sizing_types, "sizing types", __doc__ or ""),
    )
    sys.exit(max(status, readme_section("--check" in sys.argv[1:])))

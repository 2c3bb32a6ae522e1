"""Generate capacity/data/gpu_capable_types.json from the installed provider SDKs.

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
Re-run it after upgrading a provider:

    .venv/bin/python scripts/generate_gpu_capable_types.py          # write the table
    .venv/bin/python scripts/generate_gpu_capable_types.py --check  # exit 1 if it is out of date
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from sdk_tables import PACKAGES, ROOT, generate, resource_modules, sdk_versions

TABLE = ROOT / "capacity" / "data" / "gpu_capable_types.json"

# Argument names (snake case, as the SDKs spell them) that name a machine or accelerators.
MACHINE_ARGUMENT = re.compile(
    r"^(?:\w+_)?(?:instance_types?|vm_sizes?|machine_types?|machine_spec|accelerators?"
    r"|accelerator_(?:type|count|configs?)|guest_accelerators|gpus?|gpu_\w+|node_config"
    r"|instance_requirements)$"
)
# Input objects are followed this deep (GKE: cluster > node pools > node config > ...).
MAX_DEPTH = 6

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


def _machine_paths(
    parameters: list[tuple[str, str]], inputs: dict[str, list[tuple[str, str]]], depth: int = 0
) -> list[str]:
    """Property paths, below these parameters, that name a machine or accelerators."""
    paths: list[str] = []
    for name, annotation in parameters:
        if MACHINE_ARGUMENT.match(name):
            paths.append(_camel(name))
            continue
        if depth >= MAX_DEPTH:
            continue
        for nested in _NESTED.findall(annotation):
            below = _machine_paths(inputs.get(nested, []), inputs, depth + 1)
            paths.extend(f"{_camel(name)}.{path}" for path in below)
    return sorted(set(paths))


def gpu_capable_types() -> dict[str, object]:
    types: dict[str, list[str]] = {}
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
            paths = _machine_paths(args, inputs_by_dir[path.parent])
            if paths:
                types[token] = paths
    return {
        "generatedBy": "scripts/generate_gpu_capable_types.py",
        "sdkVersions": sdk_versions(),
        "types": dict(sorted(types.items())),
    }


if __name__ == "__main__":
    sys.exit(generate(TABLE, gpu_capable_types, "GPU-capable types", __doc__ or ""))

"""The last net: a resource of a type gpufleet has no reader for (another provider's type token
such as ``aws-native:ec2:Instance``, a versioned ``azure-native`` module, a remote component, a
CloudFormation or ARM template, a Step Functions or SageMaker pipeline definition) that names a
GPU machine the catalog knows, under a key that names a machine (``instanceType``, ``vmSize``,
``machine_type``, ``sku.name``, ``InstanceType`` in a template), is GPU capacity of
undetermined size: reported by ``gpu-size-undetermined`` and unpriced in the budget, never
passed as nothing.

Values are searched through nested objects and lists, and through strings that hold a JSON or
YAML document (templates, definitions), within limits (depth, count, text size) so that no
resource makes the check slow. Tags and labels are not searched: a tag that names a machine
is not a machine.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gpufleet.capacity.footprints.coverage import requests_accelerators
from gpufleet.capacity.footprints.model import GpuFootprint
from gpufleet.capacity.footprints.reading import Reading
from gpufleet.clouds import cloud_of_type
from gpufleet.text_input import InputFileError
from gpufleet.yaml_input import parse_yaml

# A key whose value is a machine: instanceType(s), vm_size, MachineType, nodeSize, agentVmSize...
_MACHINE_KEY = re.compile(r"(instance|machine|vm|node|worker|agent)[_-]?(type|size|sku)s?$", re.I)
# A key whose "name" is the machine: sku: {name: ...}, hardwareProfile: {vmSize} is above.
_NAMED_BY = re.compile(r"^(sku|size)$", re.I)
_PAIR_KEYS = {"key", "name"}
# A key that asks for GPUs without naming a machine: a Kubernetes-style resource limit
# ("nvidia.com/gpu": "1"), an accelerator type or count.
_GPU_REQUEST = re.compile(r"nvidia\.com/gpu|amd\.com/gpu|accelerator", re.I)
_NOT_SEARCHED = re.compile(r"^(tags|labels|tagsAll|resourceLabels|userLabels)$", re.I)
# Words that make a string worth parsing as a document.
_DOCUMENT_HINT = re.compile(r"instance.?type|machine.?type|vm.?size|\bsku\b", re.I)
_MAX_VALUES = 20_000
_MAX_DOCUMENT_CHARS = 1_000_000
_MAX_DEPTH = 40


def read_named_anywhere(r: Reading, type_: str) -> GpuFootprint | None:
    names, asks = _machine_values(r.props)
    named = [
        (where, machine)
        for where, value in names
        if (machine := r.catalog.machine_on_any_cloud(value)) is not None
    ]
    if asks and not named:
        cloud = cloud_of_type(type_)
        if cloud is None:
            return None
        r.undetermined.append(
            f"it asks for GPUs ({asks[0]}) and gpufleet has no reader for {type_}: which and "
            "how many are not known"
        )
        return r.footprint(cloud=cloud, kind=type_.rsplit(":", 1)[-1], is_template=False)
    if not named:
        return None
    where, first = named[0]
    machines = [machine for _, machine in named]
    r.undetermined.append(
        f"it names the GPU machine {first.instance_type} ({where}) and gpufleet has "
        f"no reader for {type_}: how many it runs is not known"
    )
    return r.footprint(
        cloud=first.cloud,
        kind=type_.rsplit(":", 1)[-1],
        is_template=False,
        machines=list(dict.fromkeys(machines)),
    )


def _machine_values(props: dict[str, Any]) -> tuple[list[tuple[str, str]], list[str]]:
    """(path, string) for every string under a machine key, documents in strings included;
    and the paths of the keys that ask for GPUs."""
    found: list[tuple[str, str]] = []
    asks: list[str] = []
    pending: list[tuple[str, Any, bool, int]] = [("", props, False, 0)]
    seen = 0
    while pending and seen < _MAX_VALUES:
        path, value, is_machine, depth = pending.pop()
        seen += 1
        if depth > _MAX_DEPTH:
            continue
        if isinstance(value, dict):
            # A key/value pair list ({"key": "instanceType", "stringValue": "p5.48xlarge"}):
            # every value beside a key that names a machine is one.
            pair_key = next(
                (
                    v
                    for k, v in value.items()
                    if str(k).lower() in _PAIR_KEYS and isinstance(v, str)
                ),
                "",
            )
            pair = bool(_MACHINE_KEY.search(pair_key))
            for key, child in value.items():
                key = str(key)
                if _NOT_SEARCHED.match(key):
                    continue
                machine_key = (
                    pair
                    or bool(_MACHINE_KEY.search(key) or _NAMED_BY.match(key))
                    or (key.lower() == "name" and bool(_NAMED_BY.match(path.rsplit(".", 1)[-1])))
                )
                if _GPU_REQUEST.search(key) and requests_accelerators(child):
                    asks.append(f"{path}.{key}" if path else key)
                pending.append((f"{path}.{key}" if path else key, child, machine_key, depth + 1))
        elif isinstance(value, list):
            pending.extend((path, item, is_machine, depth + 1) for item in value)
        elif isinstance(value, str):
            if is_machine:
                found.append((path, value))
            elif len(value) <= _MAX_DOCUMENT_CHARS and _DOCUMENT_HINT.search(value):
                document = _document(value)
                if document is not None:
                    pending.append((path, document, False, depth + 1))
    return found, asks


def _document(text: str) -> Any:
    """A JSON or YAML document a string holds (a template, a definition); None otherwise."""
    stripped = text.strip()
    if stripped[:1] in "{[":
        try:
            return json.loads(stripped)
        except ValueError:
            pass
    if "\n" in stripped:
        try:
            return parse_yaml(stripped, "property").data
        except InputFileError:
            return None
    return None

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
is not a machine. GPUs asked for without naming a machine — a Kubernetes workload's
``nvidia.com/gpu`` limit, a Karpenter node pool's GPU limits or requirements, an accelerator on
another provider's type — are GPU capacity of undetermined size too, whatever the package:
where no cloud is known (Kubernetes), its footprint names none.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gpufleet.capacity.footprints.coverage import requests_accelerators
from gpufleet.capacity.footprints.model import GpuFootprint
from gpufleet.capacity.footprints.reading import (
    AWS_ACCELERATED_CATEGORIES,
    Reading,
    looks_like_gpu,
)
from gpufleet.clouds import cloud_billing
from gpufleet.text_input import InputFileError
from gpufleet.yaml_input import parse_yaml

# A key whose value is a machine: instanceType(s), vm_size, MachineType, nodeSize, agentVmSize...
_MACHINE_KEY = re.compile(r"(instance|machine|vm|node|worker|agent)[_-]?(type|size|sku)s?$", re.I)
# A key whose "name" is the machine: sku: {name: ...}, hardwareProfile: {vmSize} is above.
_NAMED_BY = re.compile(r"^(sku|size)$", re.I)
_PAIR_KEYS = {"key", "name"}
# A key that asks for GPUs without naming a machine: a Kubernetes extended resource
# ("nvidia.com/gpu": "1", a MIG slice "nvidia.com/mig-1g.10gb", AMD's and Intel's, Gaudi),
# a Karpenter requirement on a node's GPU count, an accelerator type or count.
_GPU_REQUEST = re.compile(
    r"nvidia\.com/|amd\.com/gpu|gpu\.intel\.com/|habana\.ai/|instance-gpu-|accelerator",
    re.I,
)
_NOT_SEARCHED = re.compile(r"^(tags|labels|tagsAll|resourceLabels|userLabels)$", re.I)
# IAM's condition blocks ("ec2:InstanceType": [...]) say which machines a principal may start:
# a filter, not a machine.
_FILTERS = frozenset(("Condition",))
# Values a template's references (CloudFormation's !Ref, ARM's parameters()) resolve to.
_PARAMETERS = re.compile(r"^parameters$", re.I)
# A node requirement on a GPU machine family or category (Karpenter's ``instance-family`` /
# ``instance-category``, the well-known ``instance-type`` label is a machine key above): its
# values, when they are GPU families, ask for GPUs.
_FAMILY_REQUIREMENT = re.compile(r"instance-(family|category)$", re.I)
# Types that deploy a template held elsewhere (a URL): what it launches cannot be read here.
_TEMPLATE_LINKS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # type: (the properties holding the template itself, those pointing at one elsewhere)
    "aws:cloudformation/stack:Stack": (("templateBody",), ("templateUrl",)),
    "aws:cloudformation/stackSet:StackSet": (("templateBody",), ("templateUrl",)),
    "azure-native:resources:Deployment": (
        ("properties", "template"),
        ("properties", "templateLink"),
    ),
}
# Words that make a string worth parsing as a document.
_DOCUMENT_HINT = re.compile(
    r"instance.?type|machine.?type|vm.?size|\bsku\b|nvidia\.com/|accelerator", re.I
)
_MAX_VALUES = 20_000
_MAX_DOCUMENT_CHARS = 1_000_000
_MAX_DEPTH = 40


def read_named_anywhere(r: Reading, type_: str) -> GpuFootprint | None:
    elsewhere = _template_elsewhere(r, type_)
    if elsewhere is not None:
        r.undetermined.append(
            f"its template is at {elsewhere}, which gpufleet does not read: what it launches "
            "is not known (put the template body in the program, or acknowledge it)"
        )
        return r.footprint(
            cloud=cloud_billing(type_), kind=type_.rsplit(":", 1)[-1], is_template=False
        )
    names, asks = _machine_values(r.props)
    named = [
        (where, machine)
        for where, value in names
        if (machine := r.catalog.machine_on_any_cloud(value)) is not None
    ]
    if asks and not named:
        # Whatever provider asks: a Kubernetes pod's GPUs are on nodes gpufleet may not see.
        r.undetermined.append(
            f"it asks for GPUs ({asks[0]}) and gpufleet has no reader for {type_}: which and "
            "how many are not known"
        )
        return r.footprint(
            cloud=cloud_billing(type_), kind=type_.rsplit(":", 1)[-1], is_template=False
        )
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
            # The resource's own properties are no such pair: an SSM parameter named
            # ".../instance-type" holds a value, not a machine.
            pair = depth > 0 and bool(_MACHINE_KEY.search(pair_key))
            if depth > 0 and _asks_by_pair(pair_key, value):
                asks.append(f"{path} {pair_key}" if path else pair_key)
            for key, child in value.items():
                key = str(key)
                if _NOT_SEARCHED.match(key) or key in _FILTERS:
                    continue
                machine_key = (
                    is_machine
                    or pair
                    or bool(_MACHINE_KEY.search(key) or _NAMED_BY.match(key))
                    or bool(_PARAMETERS.match(key))
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
                    # A template launches what it names anywhere (a parameter's default, the
                    # value of a mapping a reference picks): every GPU machine in it counts.
                    pending.append((path, document, True, depth + 1))
    return found, asks


def _asks_by_pair(key: str, pair: dict[Any, Any]) -> bool:
    """A ``{key, operator, values}`` node requirement that asks for GPUs: on a GPU count, name
    or maker, or for a GPU machine family or category."""
    values = pair.get("values", pair.get("value"))
    values = values if isinstance(values, list) else [values]
    if _GPU_REQUEST.search(key):
        return str(pair.get("operator", "")).lower() != "doesnotexist" and (
            not values or any(v not in (None, "", "0", 0) for v in values)
        )
    family = _FAMILY_REQUIREMENT.search(key)
    if family is None or str(pair.get("operator", "In")).lower() not in ("in", ""):
        return False
    if family[1].lower() == "category":
        return any(
            isinstance(v, str) and v.strip().lower() in AWS_ACCELERATED_CATEGORIES for v in values
        )
    return any(isinstance(v, str) and looks_like_gpu("aws", v.strip()) for v in values)


def _template_elsewhere(r: Reading, type_: str) -> str | None:
    """Where a template deployment's template is, when it is not in the program."""
    paths = _TEMPLATE_LINKS.get(type_)
    if paths is None:
        return None
    body, link = paths
    if r.get(*body) is not None:
        return None
    where = r.get(*link)
    if where is None:
        return None
    if isinstance(where, dict):
        where = where.get("uri") or where.get("id") or where.get("relativePath") or "a link"
    return str(where)[:200]


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
            # CloudFormation's short-form functions (!Ref, !GetAtt) tag plain values.
            return parse_yaml(stripped, "property", local_tags=True).data
        except InputFileError:
            return None
    return None

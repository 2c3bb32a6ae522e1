"""Changes to a workload spec's text that keep the user's comments, order and layout.

The spec is loaded round-trip (ruamel.yaml, as ``gpufleet generate`` keeps stack files), the
named workloads' keys are set — a mapping value merged into the one there (``gpu: {count: 2}``
keeps ``name``), ``None`` removes a key — and the text dumped again; keys not named keep their
text, new ones follow the workload's last key, new mappings are written in flow style (one
line). The caller parses the result again before using or writing it.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap

# Per workload name: the keys to set (a value of None removes the key).
Edits = Mapping[str, Mapping[str, Any]]


# A block sequence item's dash and its indent, as the user wrote the first one.
_ITEM = re.compile(r"^( *)- ", re.M)


def _yaml(text: str) -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a line the user wrote on one
    # ruamel writes every sequence with one indent: the user's, read from their first item
    # (``  - name`` is offset 2, the usual; ``- name`` is 0).
    item = _ITEM.search(text)
    offset = len(item.group(1)) if item else 2
    yaml.indent(mapping=2, sequence=offset + 2, offset=offset)
    return yaml


def _flow(value: Mapping[str, Any]) -> CommentedMap:
    mapping = CommentedMap(value)
    mapping.fa.set_flow_style()
    return mapping


def _merge(target: CommentedMap, key: str, value: Any) -> None:
    if value is None:
        target.pop(key, None)
    elif isinstance(value, Mapping) and isinstance(target.get(key), CommentedMap):
        inner = target[key]
        if inner.anchor.value is not None:
            # Shared with other workloads (an anchor, which its aliases are): this one gets its
            # own copy, so a change priced for it changes nothing else.
            inner = _flow(dict(inner))
            target[key] = inner
        for name, item in value.items():
            _merge(inner, name, item)
    elif isinstance(value, Mapping):
        target[key] = _flow({k: v for k, v in value.items() if v is not None})
    else:
        target[key] = value


def edited(text: str, edits: Edits) -> str:
    """``text`` with each named workload's keys set; KeyError for a workload not in it."""
    yaml = _yaml(text)
    document = yaml.load(text)
    workloads = {w.get("name"): w for w in document.get("workloads", [])}
    for name, keys in edits.items():
        workload = workloads[name]
        for key, value in keys.items():
            _merge(workload, key, value)
    out = io.StringIO()
    yaml.dump(document, out)
    return out.getvalue()

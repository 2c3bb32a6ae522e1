"""Which resource types take cost tags, and what tags a resource will carry.

The table (``data/taggable_types.json``) is generated from the provider SDKs by
``scripts/generate_taggable_types.py``: a type is taggable when its arguments include ``tags``
(AWS, Azure) or ``labels`` (GCP) as a map, or AWS-style ``[{key, value}]`` tag lists. Tags
set on the provider (AWS ``defaultTags``, GCP ``defaultLabels``) count for every resource it
manages, as they do in the cloud. A GPU resource whose machines carry their tags deeper (a GKE
node pool's ``nodeConfig.resourceLabels``) says where, with its footprint reader
(``footprints.gpu_tag_path``).
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from gpufleet.capacity.footprints import gpu_tag_path
from gpufleet.capacity.property_values import get_path, is_unknown, provider_object
from gpufleet.tag_keys import gcp_label_key

TABLE_PATH = Path(__file__).parent / "data" / "taggable_types.json"


@dataclass(frozen=True)
class TagProperty:
    name: str  # "tags" or "labels", or a dotted path to such a map ("nodeConfig.resourceLabels")
    shape: str  # "map" or "list"

    @property
    def path(self) -> list[str]:
        return self.name.split(".")

    @property
    def labels(self) -> bool:
        """GCP labels (``labels``, ``resourceLabels``), whose keys are label keys."""
        return self.path[-1].lower().endswith("labels")

    def key_for(self, tag_key: str) -> str:
        """The key ``tag_key`` has on this resource (GCP labels: mapped to a label key)."""
        return gcp_label_key(tag_key) if self.labels else tag_key


@dataclass(frozen=True)
class TagReading:
    keys: frozenset[str]  # keys present (with known or unknown values)
    unknown_values: tuple[str, ...]  # present keys whose value is unknown during preview
    # Present keys whose value is blank (empty, or only whitespace): no value at all.
    empty_values: tuple[str, ...]
    # The set of keys itself cannot be known (the whole map or a list entry is unknown).
    keys_unknown: bool


@cache
def taggable_table() -> dict[str, TagProperty]:
    data = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
    return {t: TagProperty(v["property"], v["shape"]) for t, v in data["types"].items()}


def tag_property(type_: str) -> TagProperty | None:
    path = gpu_tag_path(type_)
    if path is not None:
        return TagProperty(path, "map")
    return taggable_table().get(type_)


def read_tags(
    prop: TagProperty, props: dict[str, Any], provider_props: dict[str, Any] | None
) -> TagReading:
    # Cost tags must reach the machines: a group's tag it does not give its instances does not.
    entries, keys_unknown = tag_entries(prop, props, provider_props, launched_only=True)
    return TagReading(
        keys=frozenset(entries),
        unknown_values=tuple(sorted(k for k, v in entries.items() if is_unknown(v))),
        empty_values=tuple(sorted(k for k, v in entries.items() if _blank(v))),
        keys_unknown=keys_unknown,
    )


# Characters that show nothing: spaces of every kind, zero-width and other format characters,
# controls. A value made only of them is as missing as an empty one.
_INVISIBLE = frozenset(("Zs", "Zl", "Zp", "Cc", "Cf"))


def _blank(value: Any) -> bool:
    if value is None:
        return True
    if not isinstance(value, str):
        return False
    return all(unicodedata.category(ch) in _INVISIBLE for ch in value)


def tag_entries(
    prop: TagProperty,
    props: dict[str, Any],
    provider_props: dict[str, Any] | None,
    *,
    launched_only: bool = False,
) -> tuple[dict[str, Any], bool]:
    """The tags a resource will carry (provider defaults, then its own) and whether some
    keys cannot be known yet; ``launched_only``: an Auto Scaling group's tags its instances
    get (``propagateAtLaunch``), not the group's own."""
    entries: dict[str, Any] = {}
    keys_unknown = False
    for source in (_provider_defaults(prop, provider_props or {}), get_path(props, *prop.path)):
        if source is None:
            continue
        if is_unknown(source):
            keys_unknown = True
        elif isinstance(source, dict):
            entries.update(source)
        elif isinstance(source, list):
            for item in source:
                if not isinstance(item, dict) or is_unknown(item.get("key", item.get("name"))):
                    keys_unknown = True
                    continue
                if launched_only and item.get("propagateAtLaunch") is False:
                    continue
                entries[str(item.get("key", item.get("name")))] = item.get("value")
    return entries, keys_unknown


def _provider_defaults(prop: TagProperty, provider: dict[str, Any]) -> Any:
    if not prop.labels:
        default = provider_object(provider.get("defaultTags"))
        if isinstance(default, dict):
            return default.get("tags")
        return default
    return provider_object(provider.get("defaultLabels"))

"""Which resource types take cost tags, and what tags a resource will carry.

The table (``data/taggable_types.json``) is generated from the provider SDKs by
``scripts/generate_taggable_types.py``: a type is taggable when its arguments include ``tags``
(AWS, Azure) or ``labels`` (GCP) as a map, or AWS-style ``[{key, value}]`` tag lists. Tags
set on the provider (AWS ``defaultTags``, GCP ``defaultLabels``) count for every resource it
manages whose tags are a map, as they do in the cloud (the AWS provider merges them into
``tagsAll``; a tag list, such as an Auto Scaling group's, gets none), and keys the AWS
provider's ``ignoreTags`` names (or starts with one of its ``keyPrefixes``) count for none:
the provider leaves them to whatever else manages them. A GPU resource whose machines carry
their tags deeper (a GKE node pool's ``nodeConfig.resourceLabels``) says where, with its
footprint reader (``footprints.gpu_tag_path``). What the machines a group or fleet launches
carry is ``launched_tags``'.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from gpufleet.capacity.footprints import gpu_tag_path
from gpufleet.capacity.property_values import as_list, get_path, is_unknown, provider_object
from gpufleet.tag_keys import gcp_label_key

TABLE_PATH = Path(__file__).parent / "data" / "taggable_types.json"


@dataclass(frozen=True)
class TagProperty:
    name: str  # "tags" or "labels", or a dotted path to such a map ("nodeConfig.resourceLabels")
    shape: str  # "map" or "list"

    # Computed once: every resource of a stack asks (the pack reads thousands).
    @cached_property
    def path(self) -> list[str]:
        return self.name.split(".")

    @cached_property
    def labels(self) -> bool:
        """GCP labels (``labels``, ``resourceLabels``), whose keys are label keys."""
        return self.path[-1].lower().endswith("labels")

    def key_for(self, tag_key: str) -> str:
        """The key ``tag_key`` has on this resource (GCP labels: mapped to a label key)."""
        return gcp_label_key(tag_key) if self.labels else tag_key

    def keys_for(self, tag_keys: tuple[str, ...]) -> list[str]:
        """``key_for`` of each of ``tag_keys``."""
        return _keys_for(self.labels, tag_keys)


@cache
def _keys_for(labels: bool, tag_keys: tuple[str, ...]) -> list[str]:
    return [gcp_label_key(k) for k in tag_keys] if labels else list(tag_keys)


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
    """The tags the resource itself will carry."""
    entries, keys_unknown = tag_entries(prop, props, provider_props)
    return tag_reading(entries, keys_unknown)


def tag_reading(entries: dict[str, Any], keys_unknown: bool) -> TagReading:
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
    """The tags a resource will carry (provider defaults for a map of tags, then its own, less
    the keys the provider ignores) and whether some keys cannot be known yet;
    ``launched_only``: of an Auto Scaling group's tags, those its instances get
    (``propagateAtLaunch``)."""
    provider = provider_props or {}
    entries: dict[str, Any] = {}
    keys_unknown = False
    defaults = _provider_defaults(prop, provider) if prop.shape == "map" else None
    for source in (defaults, get_path(props, *prop.path)):
        if source is None:
            continue
        if is_unknown(source):
            keys_unknown = True
        elif isinstance(source, dict):
            entries.update(source)
        elif isinstance(source, list):
            found, unknown = list_entries(source, launched_only=launched_only)
            entries.update(found)
            keys_unknown = keys_unknown or unknown
    ignored = ignored_tag_keys(provider) if not prop.labels else None
    if ignored is not None:
        entries = {k: v for k, v in entries.items() if not ignored(str(k))}
    return entries, keys_unknown


def list_entries(items: list[Any], *, launched_only: bool = False) -> tuple[dict[str, Any], bool]:
    """AWS-style tag lists ``[{key, value}]`` (``name`` for the key in some APIs) as a map, and
    whether some key cannot be known; ``launched_only``: without the entries that stay on an
    Auto Scaling group (``propagateAtLaunch: false``, or unset: AWS's default is false)."""
    entries: dict[str, Any] = {}
    keys_unknown = False
    for item in items:
        if not isinstance(item, dict) or is_unknown(item.get("key", item.get("name"))):
            keys_unknown = True
            continue
        if launched_only:
            propagate = item.get("propagateAtLaunch")
            if is_unknown(propagate):
                keys_unknown = True
                continue
            if propagate is not True:
                continue
        entries[str(item.get("key", item.get("name")))] = item.get("value")
    return entries, keys_unknown


def ignored_tag_keys(provider: dict[str, Any]) -> Callable[[str], bool] | None:
    """Whether the AWS provider's ``ignoreTags`` takes a key out of its hands (by name, or by
    one of its prefixes); None when it ignores none."""
    config = provider_object(provider.get("ignoreTags"))
    if not isinstance(config, dict):
        return None
    keys = {k for k in as_list(provider_object(config.get("keys"))) if isinstance(k, str)}
    # A dict given for the provider's object reaches it as JSON with its keys as written.
    listed = config.get("keyPrefixes", config.get("key_prefixes"))
    prefixes = tuple(p for p in as_list(provider_object(listed)) if isinstance(p, str) and p)
    if not keys and not prefixes:
        return None
    return lambda key: key in keys or key.startswith(prefixes)


def _provider_defaults(prop: TagProperty, provider: dict[str, Any]) -> Any:
    if not prop.labels:
        default = provider_object(provider.get("defaultTags"))
        if isinstance(default, dict):
            return default.get("tags")
        return default
    return provider_object(provider.get("defaultLabels"))

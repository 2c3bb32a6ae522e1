"""Generate capacity/data/taggable_types.json from the installed provider SDKs.

Pulumi has no list of which resource types take tags (pulumi-policy#301), and a hand-kept list
goes stale with every provider release. The SDKs say it themselves: a resource is taggable when
its ``...Args`` class has a ``tags`` argument (AWS, Azure) or a ``labels`` argument (GCP) holding
a map — or, for AWS Auto Scaling groups, a list of ``{key, value}`` objects. GCP's ``tags`` are
network tags (a list of strings), not billing labels, and do not count.

The script reads the SDK sources (no imports: importing every module of the three SDKs would
take minutes and gigabytes) and writes the table with the SDK versions it came from, so a test
can tell when the installed SDKs and the table disagree. Re-run it after upgrading a provider:

    .venv/bin/python scripts/generate_taggable_types.py          # write the table
    .venv/bin/python scripts/generate_taggable_types.py --check  # exit 1 if it is out of date
"""

from __future__ import annotations

import re
import sys

from sdk_tables import PACKAGES, ROOT, generate, resource_modules, sdk_versions

TABLE = ROOT / "capacity" / "data" / "taggable_types.json"

# SDK module -> argument names that carry tags
TAG_ARGUMENTS = {
    "pulumi_aws": ("tags",),
    "pulumi_gcp": ("labels",),
    "pulumi_azure_native": ("tags",),
}
_ARGS_INIT = re.compile(r"^class \w+Args:\n    def __init__\(__self__, \*,\n(.*?)\):", re.M | re.S)
_ARGUMENT = re.compile(r"^\s+(\w+): pulumi\.Input\[(?:Optional\[)?(Mapping|Sequence)\[(.*)\]\]")


def taggable_types() -> dict[str, object]:
    types: dict[str, dict[str, str]] = {}
    for package in PACKAGES:
        for _, token, text in resource_modules(package):
            args = _ARGS_INIT.search(text)
            if args is None:
                continue
            for line in args.group(1).splitlines():
                argument = _ARGUMENT.match(line)
                if argument is None or argument[1] not in TAG_ARGUMENTS[package]:
                    continue
                shape = _shape(argument[2], argument[3])
                if shape is not None:
                    types[token] = {"property": argument[1], "shape": shape}
    return {
        "generatedBy": "scripts/generate_taggable_types.py",
        "sdkVersions": sdk_versions(),
        "types": dict(sorted(types.items())),
    }


def _shape(container: str, element: str) -> str | None:
    """'map' for {key: value}, 'list' for [{key, value}] (AWS ASG); None for anything else."""
    if container == "Mapping":
        return "map"
    if "TagArgs" in element:
        return "list"
    return None


if __name__ == "__main__":
    sys.exit(generate(TABLE, taggable_types, "taggable types", __doc__ or ""))

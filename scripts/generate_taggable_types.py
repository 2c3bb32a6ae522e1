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

import argparse
import importlib.util
import json
import re
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "capacity" / "data" / "taggable_types.json"

# package -> (distribution, argument names that carry tags)
PACKAGES = {
    "pulumi_aws": ("pulumi-aws", ("tags",)),
    "pulumi_gcp": ("pulumi-gcp", ("labels",)),
    "pulumi_azure_native": ("pulumi-azure-native", ("tags",)),
}
_TOKEN = re.compile(r"super\(\w+, __self__\)\.__init__\(\s*'([^']+)'")
_ARGS_INIT = re.compile(r"^class \w+Args:\n    def __init__\(__self__, \*,\n(.*?)\):", re.M | re.S)
_ARGUMENT = re.compile(r"^\s+(\w+): pulumi\.Input\[(?:Optional\[)?(Mapping|Sequence)\[(.*)\]\]")


def taggable_types() -> dict[str, object]:
    types: dict[str, dict[str, str]] = {}
    versions: dict[str, str] = {}
    for package, (distribution, tag_arguments) in PACKAGES.items():
        versions[distribution] = metadata.version(distribution)
        spec = importlib.util.find_spec(package)
        if spec is None or spec.origin is None:
            raise SystemExit(f"{package} is not installed")
        for path in sorted(Path(spec.origin).parent.rglob("*.py")):
            if path.name.startswith(("get_", "_", "list_")):
                continue
            text = path.read_text(encoding="utf-8")
            token = _TOKEN.search(text)
            args = _ARGS_INIT.search(text)
            if token is None or args is None:
                continue
            for line in args.group(1).splitlines():
                argument = _ARGUMENT.match(line)
                if argument is None or argument[1] not in tag_arguments:
                    continue
                shape = _shape(argument[2], argument[3])
                if shape is not None:
                    types[token[1]] = {"property": argument[1], "shape": shape}
    return {
        "generatedBy": "scripts/generate_taggable_types.py",
        "sdkVersions": versions,
        "types": dict(sorted(types.items())),
    }


def _shape(container: str, element: str) -> str | None:
    """'map' for {key: value}, 'list' for [{key, value}] (AWS ASG); None for anything else."""
    if container == "Mapping":
        return "map"
    if "TagArgs" in element:
        return "list"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the table is stale")
    options = parser.parse_args()
    text = json.dumps(taggable_types(), indent=1) + "\n"
    if options.check:
        current = TABLE.read_text(encoding="utf-8") if TABLE.exists() else ""
        if current != text:
            print(f"{TABLE}: out of date; run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    tmp = TABLE.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(TABLE)
    table = json.loads(text)
    print(f"{TABLE.relative_to(ROOT)}: {len(table['types'])} taggable types")
    return 0


if __name__ == "__main__":
    sys.exit(main())

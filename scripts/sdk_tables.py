"""What the table generators share: the provider SDKs' resource modules, read as text, and the
write-or-check a generated table goes through.

Read as text, not imported: importing every module of the three SDKs would take minutes and
gigabytes. A table records the SDK versions it came from, so a test can tell (``--check``)
when the installed SDKs and the table disagree.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path

from gpufleet.atomic_write import atomic_write_text

ROOT = Path(__file__).resolve().parent.parent

# Python SDK module -> its distribution
PACKAGES = {
    "pulumi_aws": "pulumi-aws",
    "pulumi_gcp": "pulumi-gcp",
    "pulumi_azure_native": "pulumi-azure-native",
}
_TOKEN = re.compile(r"super\(\w+, __self__\)\.__init__\(\s*'([^']+)'")


def sdk_versions() -> dict[str, str]:
    return {distribution: metadata.version(distribution) for distribution in PACKAGES.values()}


def resource_modules(package: str) -> Iterator[tuple[Path, str, str]]:
    """(path, resource type token, source) of each resource module of an SDK package."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise SystemExit(f"{package} is not installed")
    for path in sorted(Path(spec.origin).parent.rglob("*.py")):
        if path.name.startswith(("get_", "_", "list_")):
            continue
        text = path.read_text(encoding="utf-8")
        token = _TOKEN.search(text)
        if token is not None:
            yield path, token[1], text


def generate(table: Path, build: Callable[[], dict[str, object]], what: str, doc: str) -> int:
    """The generator's command line: write ``table`` from ``build()``, or with ``--check``
    exit 1 when it is out of date."""
    parser = argparse.ArgumentParser(description=doc.partition("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the table is stale")
    options = parser.parse_args()
    data = build()
    text = json.dumps(data, indent=1) + "\n"
    script = Path(sys.argv[0]).name
    if options.check:
        current = table.read_text(encoding="utf-8") if table.exists() else ""
        if current != text:
            print(f"{table}: out of date; run {script}", file=sys.stderr)
            return 1
        return 0
    atomic_write_text(table, text)
    types = data.get("types")
    print(f"{table.relative_to(ROOT)}: {len(types) if isinstance(types, dict) else 0} {what}")
    return 0

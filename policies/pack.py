"""gpufleet's CrossGuard policy pack: its name, its rules, and what serves them.

``analyzer()`` builds the servicer for every rule of ``rules`` without starting anything;
``serve()`` starts the Analyzer gRPC server and blocks (``__main__.py`` calls it when Pulumi,
or ``gpufleet check``, runs the pack). It serves what ``pulumi_policy.PolicyPack`` would, with
the pack's own serving machinery (``serving``). Default enforcement is mandatory; an
environment's ``config/<env>.json`` holds only what differs from each policy's defaults.
"""

from __future__ import annotations

import re
from pathlib import Path

from pulumi_policy import EnforcementLevel

from gpufleet.policies.rules import all_policies
from gpufleet.policies.serving.analyzer_servicer import PackAnalyzer
from gpufleet.policies.serving.serve import serve_analyzer

PACK_NAME = "gpufleet"
DESCRIPTION = "GPU capacity that is tagged, right-sized, within budget and private."
PACK_DIR = Path(__file__).parent
CONFIG_DIR = PACK_DIR / "config"
MANIFEST = "PulumiPolicy.yaml"


def _manifest_version() -> str:
    """The version in PulumiPolicy.yaml (its one home): what the engine reports for the pack,
    and what the pack answers when asked (GetAnalyzerInfo), so the two cannot differ. The
    manifest is beside this module in the source, and at the root of a pack ``gpufleet pack``
    built (``<pack>/gpufleet/policies/`` holds this module)."""
    for manifest in (PACK_DIR / MANIFEST, PACK_DIR.parent.parent / MANIFEST):
        if manifest.is_file():
            found = re.search(
                r"^version:\s*([^\s#]+)", manifest.read_text(encoding="utf-8"), re.MULTILINE
            )
            if found is not None:
                return found[1]
    raise RuntimeError(f"no {MANIFEST} with a version beside {PACK_DIR} or at its pack's root")


PACK_VERSION = _manifest_version()


def analyzer() -> PackAnalyzer:
    return PackAnalyzer(
        PACK_NAME,
        PACK_VERSION,
        all_policies(),
        EnforcementLevel.MANDATORY,
        description=DESCRIPTION,
    )


def serve() -> None:
    pack = analyzer()
    _load_data()
    serve_analyzer(pack)


def _load_data() -> None:
    """Read every data file the rules use now, before the pack says it is ready (its port):
    ``gpufleet check`` starts the program under check only then, so a program cannot rewrite
    a table or the catalog before the pack reads it."""
    from gpufleet.capacity.footprints.coverage import gpu_capable_table
    from gpufleet.capacity.footprints.model import shipped_machine_catalog
    from gpufleet.capacity.taggable import taggable_table

    shipped_machine_catalog()
    gpu_capable_table()
    taggable_table()

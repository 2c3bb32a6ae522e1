"""gpufleet's CrossGuard policy pack: its name, its rules, and what serves them.

``analyzer()`` builds the servicer for every rule of ``rules`` without starting anything;
``serve()`` starts the Analyzer gRPC server and blocks (``__main__.py`` calls it when Pulumi,
or ``gpufleet check``, runs the pack). It serves what ``pulumi_policy.PolicyPack`` would, with
the pack's own serving machinery (``serving``). Default enforcement is mandatory; an
environment's ``config/<env>.json`` holds only what differs from each policy's defaults.
"""

from __future__ import annotations

from pathlib import Path

from pulumi_policy import EnforcementLevel

from gpufleet.policies.rules import all_policies
from gpufleet.policies.serving.analyzer_servicer import PackAnalyzer
from gpufleet.policies.serving.serve import serve_analyzer

PACK_NAME = "gpufleet"
DESCRIPTION = "GPU capacity that is tagged, right-sized, within budget and private."
# PulumiPolicy.yaml's version is what the engine reports; the SDK's packs answer this one.
SDK_VERSION = "0.0.1"
PACK_DIR = Path(__file__).parent
CONFIG_DIR = PACK_DIR / "config"


def analyzer() -> PackAnalyzer:
    return PackAnalyzer(
        PACK_NAME,
        SDK_VERSION,
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

"""The evasion corpus as one Pulumi program: every case in ``../cases`` runs in turn, as a
module named after its file (it names its resources after that: ``NAME`` or ``NAME-...``).
One program keeps the corpus to one run of ``gpufleet check``; each case's verdict is what
the check finds on its own resources."""

import runpy
import sys
from pathlib import Path

CASES = Path(__file__).resolve().parent.parent / "cases"
sys.path.insert(0, str(CASES))  # the cases' shared tags (_tags)

for path in sorted(CASES.glob("[!_]*.py")):
    runpy.run_path(str(path), run_name=path.stem)

"""The pack starts light: building its servicer imports neither pydantic nor a cloud SDK, so a
policy pack process answers the engine fast."""

from __future__ import annotations

import subprocess
import sys


def test_the_pack_imports_no_pydantic_and_no_cloud_sdk() -> None:
    code = (
        "import sys\n"
        "import gpufleet.policies.pack as pack\n"
        "pack.analyzer()\n"
        "heavy = {'pydantic', 'pulumi_aws', 'pulumi_gcp', 'pulumi_azure_native', 'boto3'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"

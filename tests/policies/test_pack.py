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


def test_the_pack_answers_the_version_its_manifest_declares() -> None:
    """One home: PulumiPolicy.yaml's version is what the engine reports and what the pack
    answers GetAnalyzerInfo with (the SDK's packs answer 0.0.1 whatever the manifest says)."""
    import re

    from gpufleet.policies import pack

    manifest = (pack.PACK_DIR / "PulumiPolicy.yaml").read_text()
    declared = re.search(r"^version: (\S+)", manifest, re.MULTILINE)
    assert declared is not None
    info = pack.analyzer().GetAnalyzerInfo(None, None)
    assert info.version == declared[1] == pack.PACK_VERSION

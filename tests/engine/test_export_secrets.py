"""Exports Pulumi can import, or a clear refusal: an export holding secrets names the
passphrase secrets provider in the shape Pulumi's Go sources define (checked against the test
vector of pkg/secrets/passphrase/manager_test.go); without a stack salt or a passphrase, and
for a --preview capture, it is refused unless written --analysis-only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpufleet.cli.main import main
from gpufleet.engine.export_secrets import (
    ExportSecretsError,
    export_secrets_provider,
    new_salt_state,
    passphrase_matches,
)
from tests.engine.samples import validate_export

# pulumi/pulumi pkg/secrets/passphrase/manager_test.go: this state is the passphrase
# "password"'s (TestPassphraseManagerCorrectPassphraseReturnsSecretsManager).
PULUMI_STATE = "v1:fozI5u6B030=:v1:F+6ZduKKd8G0/V7L:PGMFeIzwobWRKmEAzUdaQHqC5mMRIQ=="

PROGRAM = """
import pulumi
import pulumi_aws as aws

aws.s3.Bucket("b", tags={"pw": pulumi.Output.secret("tag-hunter2")})
pulumi.export("pw", pulumi.Output.secret("hunter2"))
"""


def test_the_passphrase_check_agrees_with_pulumis_own_test_vector() -> None:
    assert passphrase_matches("password", PULUMI_STATE)
    assert not passphrase_matches("password123", PULUMI_STATE)


def test_a_new_salt_state_has_pulumis_shape_and_checks_its_passphrase() -> None:
    state = new_salt_state("s3cret")
    version, salt, inner_version, nonce, ciphertext = state.split(":")
    assert (version, inner_version) == ("v1", "v1")
    assert len(salt) == 12 and len(nonce) == 16  # base64 of 8 and 12 bytes
    assert len(ciphertext) == 32  # base64 of "pulumi" + the 16-byte GCM tag
    assert passphrase_matches("s3cret", state)
    assert not passphrase_matches("s3cret ", state)


def test_the_provider_comes_from_the_stack_salt_then_the_passphrase(tmp_path: Path) -> None:
    stack_file = tmp_path / "Pulumi.dev.yaml"
    stack_file.write_text(f"encryptionsalt: {PULUMI_STATE}\nconfig: {{}}\n")
    provider = export_secrets_provider(stack_file, {})
    assert provider == {"type": "passphrase", "state": {"salt": PULUMI_STATE}}
    bare = tmp_path / "Pulumi.prod.yaml"
    bare.write_text("config: {}\n")
    made = export_secrets_provider(bare, {"PULUMI_CONFIG_PASSPHRASE": "pw"})
    assert passphrase_matches("pw", made["state"]["salt"])
    passfile = tmp_path / "passphrase"
    passfile.write_text("from a file\n")
    made = export_secrets_provider(bare, {"PULUMI_CONFIG_PASSPHRASE_FILE": str(passfile)})
    assert passphrase_matches("from a file", made["state"]["salt"])
    with pytest.raises(ExportSecretsError, match="PULUMI_CONFIG_PASSPHRASE"):
        export_secrets_provider(bare, {})


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("secret-export")
    (folder / "Pulumi.yaml").write_text("name: secrets\nruntime: python\n")
    (folder / "__main__.py").write_text(PROGRAM)
    return folder


def _export(program: Path, out: Path, *extra: str, env: dict[str, str | None] | None = None):
    args = ["preview", "--program", str(program), "--stack", "dev", "--export", str(out), *extra]
    return CliRunner(env={"PULUMI_CONFIG_PASSPHRASE": None, **(env or {})}).invoke(main, args)


def test_an_export_with_secrets_and_no_provider_is_refused(program: Path, tmp_path: Path) -> None:
    out = tmp_path / "export.json"
    result = _export(program, out)
    assert result.exit_code == 2
    assert "pulumi stack import" in result.stderr and "PULUMI_CONFIG_PASSPHRASE" in result.stderr
    assert not out.exists()
    analysis = _export(program, out, "--analysis-only")
    assert analysis.exit_code == 0, analysis.output
    document = json.loads(out.read_text())
    assert "secrets_providers" not in document["deployment"]
    assert "for analysis only" in analysis.stderr


def test_an_export_with_secrets_names_the_passphrase_provider(
    program: Path, tmp_path: Path
) -> None:
    out = tmp_path / "export.json"
    result = _export(program, out, env={"PULUMI_CONFIG_PASSPHRASE": "correct horse"})
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    validate_export(document)
    provider = document["deployment"]["secrets_providers"]
    assert provider["type"] == "passphrase"
    assert passphrase_matches("correct horse", provider["state"]["salt"])
    assert "hunter2" not in json.dumps(provider)


def test_a_preview_export_is_refused_unless_for_analysis_only(
    program: Path, tmp_path: Path
) -> None:
    out = tmp_path / "export.json"
    result = _export(program, out, "--preview")
    assert result.exit_code == 2 and not out.exists()
    assert "--preview capture has unknown ids" in result.stderr
    assert _export(program, out, "--preview", "--analysis-only").exit_code == 0
    assert json.loads(out.read_text())["deployment"]["resources"]

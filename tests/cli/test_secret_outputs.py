"""Secrets never show: a program's secret exports and the outputs it names in
additional_secret_outputs are [secret] on screen and in JSON, and Pulumi secret objects in an
export, however the program runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpufleet.cli.main import main
from gpufleet.engine.wire import SECRET_SIG, SIG_KEY

PROGRAM = """
import pulumi
import pulumi_aws as aws

bucket = aws.s3.Bucket(
    "b",
    tags={"pw": pulumi.Output.secret("tag-hunter2")},
    opts=pulumi.ResourceOptions(additional_secret_outputs=["bucket"]),
)
pulumi.export("pw", pulumi.Output.secret("hunter2"))
pulumi.export("bucket", bucket.bucket)
pulumi.export("nested", {"inner": pulumi.Output.secret("deep-hunter2"), "open": "visible"})
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("secrets")
    (folder / "Pulumi.yaml").write_text("name: secrets\nruntime: python\n")
    (folder / "__main__.py").write_text(PROGRAM)
    return folder


@pytest.mark.parametrize("fmt", ["tree", "json"])
def test_preview_shows_every_secret_as_secret(program: Path, fmt: str) -> None:
    result = CliRunner().invoke(
        main, ["preview", "--program", str(program), "--stack", "dev", "--format", fmt]
    )
    assert result.exit_code == 0, result.output
    assert "hunter2" not in result.output
    assert "b3e2" not in result.output  # the bucket's name, an additional secret output
    assert "visible" in result.stdout  # what is not secret still shows
    if fmt == "json":
        exports = json.loads(result.stdout)["exports"]
        assert exports["pw"] == exports["bucket"] == exports["nested"]["inner"] == "[secret]"


def test_the_export_marks_every_secret(program: Path, tmp_path: Path) -> None:
    export = tmp_path / "export.json"
    result = CliRunner(env={"PULUMI_CONFIG_PASSPHRASE": "correct horse"}).invoke(
        main, ["preview", "--program", str(program), "--stack", "dev", "--export", str(export)]
    )
    assert result.exit_code == 0, result.output
    document = json.loads(export.read_text())
    assert document["deployment"]["secrets_providers"]["type"] == "passphrase"
    stack, bucket = document["deployment"]["resources"][0], document["deployment"]["resources"][-1]

    def marked(value: object) -> bool:
        return isinstance(value, dict) and value.get(SIG_KEY) == SECRET_SIG

    assert marked(stack["outputs"]["pw"]) and marked(stack["outputs"]["bucket"])
    assert marked(stack["outputs"]["nested"]["inner"])
    assert stack["outputs"]["nested"]["open"] == "visible"
    assert marked(bucket["outputs"]["bucket"]) and marked(bucket["inputs"]["tags"]["pw"])
    # Nowhere outside a secret object.
    for value in _strings_outside_secrets(document):
        assert "hunter2" not in value


def _strings_outside_secrets(value: object) -> list[str]:
    if isinstance(value, dict):
        if value.get(SIG_KEY) == SECRET_SIG:
            return []
        return [s for v in value.values() for s in _strings_outside_secrets(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings_outside_secrets(v)]
    return [value] if isinstance(value, str) else []

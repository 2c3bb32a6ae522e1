"""A capture as a pulumi stack export: valid version-3 deployments in dependency order, round-trips
through the SDK, unknowns and secrets kept."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pulumi
import pulumi_aws as aws
import pytest
from click.testing import CliRunner
from pulumi import automation

from gpufleet.cli.main import main
from gpufleet.engine.analyzer_resources import from_deployment
from gpufleet.engine.capture import capture_program
from gpufleet.engine.stack_export import deployment
from gpufleet.engine.wire import SECRET_SIG, SIG_KEY, UNKNOWN
from tests.engine.samples import small_program, validate_export


def export_of(program: Callable[[], Any], **kw: Any) -> dict[str, Any]:
    return deployment(capture_program(program, **kw).capture)


def test_export_is_a_valid_version_3_deployment_in_dependency_order() -> None:
    document = export_of(small_program, project="acme", stack="dev")
    validate_export(document)
    resources = document["deployment"]["resources"]
    assert resources[0]["type"] == "pulumi:pulumi:Stack"
    assert resources[0]["outputs"] == {"role": "arn:aws:iam::123456789012:role/pool-role"}
    seen: set[str] = set()
    for resource in resources:
        needed = [resource.get("parent"), *resource.get("dependencies", [])]
        needed.append(resource.get("provider", "").rsplit("::", 1)[0] or None)
        assert all(urn in seen for urn in needed if urn), resource["urn"]
        seen.add(resource["urn"])
    # Resources that used the default provider point at a synthesized default provider.
    (provider,) = [r for r in resources if r["type"] == "pulumi:providers:aws"]
    assert provider["urn"].startswith("urn:pulumi:dev::acme::pulumi:providers:aws::default_7_")
    bucket = next(r for r in resources if r["type"] == "aws:s3/bucket:Bucket")
    assert bucket["provider"] == f"{provider['urn']}::{provider['id']}"
    assert bucket["protect"] is True and bucket["id"] == bucket["outputs"]["bucket"]


def test_export_round_trips_through_the_sdk_deployment_type() -> None:
    document = export_of(small_program)
    text = json.dumps(document, indent=4)
    # LocalWorkspace.export_stack builds Deployment(**json); import_stack dumps .__dict__.
    restored = automation.Deployment(**json.loads(text))
    assert json.dumps(restored.__dict__, indent=4) == text
    assert restored.version == 3


def test_export_of_a_preview_keeps_unknowns_and_stays_valid() -> None:
    document = export_of(small_program, preview=True)
    validate_export(document)
    bucket = next(r for r in document["deployment"]["resources"] if r["type"].endswith("Bucket"))
    assert "id" not in bucket and bucket["inputs"]["tags"]["uses"] == UNKNOWN


def test_export_writes_secrets_in_plaintext_form() -> None:
    def program() -> None:
        aws.iam.User("u", tags={"token": pulumi.Output.secret("s3cr3t")})

    user = next(
        r for r in export_of(program)["deployment"]["resources"] if r["type"].endswith("User")
    )
    assert user["inputs"]["tags"]["token"] == {SIG_KEY: SECRET_SIG, "plaintext": '"s3cr3t"'}


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(version=2),
        lambda d: d["deployment"]["resources"][1].update(urn="not-a-urn"),
        lambda d: d["deployment"]["resources"][1].update(custum=True),
        lambda d: d["deployment"].pop("manifest"),
    ],
)
def test_the_export_schema_rejects_broken_documents(
    mutate: Callable[[dict[str, Any]], Any],
) -> None:
    document = export_of(small_program)
    mutate(document)
    with pytest.raises(jsonschema.ValidationError):
        validate_export(document)


def test_the_manifest_magic_is_what_the_cli_computes() -> None:
    manifest = export_of(small_program)["deployment"]["manifest"]
    # The CLI's Manifest.NewMagic: sha256 of the version string as written (with its "v").
    assert manifest["version"].startswith("v")
    assert manifest["magic"] == hashlib.sha256(manifest["version"].encode()).hexdigest()


def test_the_export_keeps_the_resource_options_the_engine_records() -> None:
    def program() -> None:
        bucket = aws.s3.Bucket("keep")
        aws.s3.Bucket(
            "logs",
            opts=pulumi.ResourceOptions(
                ignore_changes=["tags"],
                replace_on_changes=["bucket"],
                additional_secret_outputs=["arn"],
                deleted_with=bucket,
                replace_with=[bucket],
                hide_diffs=["tags"],
                import_="logs-bucket",
                custom_timeouts=pulumi.CustomTimeouts(create="1h30m", delete="45s", update="x"),
                aliases=["urn:pulumi:dev::acme::aws:s3/bucket:Bucket::old-logs"],
            ),
        )

    document = export_of(program, project="acme", stack="dev")
    validate_export(document)
    logs = next(r for r in document["deployment"]["resources"] if r["urn"].endswith("::logs"))
    keep = next(r for r in document["deployment"]["resources"] if r["urn"].endswith("::keep"))
    assert logs["ignoreChanges"] == ["tags"] and logs["replaceOnChanges"] == ["bucket"]
    assert logs["additionalSecretOutputs"] == ["arn"]
    assert logs["deletedWith"] == keep["urn"] and logs["replaceWith"] == [keep["urn"]]
    assert logs["hideDiff"] == ["tags"] and logs["importID"] == "logs-bucket"
    # Seconds, as the engine stores them; a duration Go cannot parse is not stored.
    assert logs["customTimeouts"] == {"create": 5400.0, "delete": 45.0}
    # The engine records only an alias that matched a resource of the previous state: a
    # fresh deployment has none.
    assert "aliases" not in logs
    assert "ignoreChanges" not in keep and "customTimeouts" not in keep  # only what is set
    # Every resource was created (and last modified) with the deployment.
    manifest = document["deployment"]["manifest"]
    assert {r["created"] for r in document["deployment"]["resources"]} == {manifest["time"]}
    # replaceWith is a feature older CLIs do not know: version 4 names it, as the CLI writes.
    assert document["version"] == 4 and document["features"] == ["replaceWith"]


def test_the_export_keeps_replacement_triggers_and_hooks_as_the_engine_records_them() -> None:
    def program() -> None:
        hook = pulumi.ResourceHook("notify", lambda args: None)
        retry = pulumi.ErrorHook("retry", lambda args: False)
        aws.s3.Bucket(
            "data",
            opts=pulumi.ResourceOptions(
                replacement_trigger={"generation": 2, "key": pulumi.Output.secret("k<1>")},
                hooks=pulumi.ResourceHookBinding(before_create=[hook], on_error=[retry]),
            ),
        )
        aws.s3.Bucket("flag", opts=pulumi.ResourceOptions(replacement_trigger=False))

    document = export_of(program)
    validate_export(document)
    by_name = {r["urn"].rsplit("::", 1)[-1]: r for r in document["deployment"]["resources"]}
    data = by_name["data"]
    # Whole numbers as Go writes them; a secret's plaintext as json.Marshal does.
    assert data["replacementTrigger"] == {
        "generation": 2,
        "key": {SIG_KEY: SECRET_SIG, "plaintext": '"k\\u003c1\\u003e"'},
    }
    assert '"generation": 2,' in json.dumps(data)
    assert data["resourceHooks"] == {"BeforeCreate": ["notify"], "OnError": ["retry"]}
    assert by_name["flag"]["replacementTrigger"] is False  # any value but none is recorded
    assert document["version"] == 4 and document["features"] == ["hooks"]
    # gpufleet reads what it writes: version 4 too.
    assert len(from_deployment(document, "export.json")) == len(by_name)


def test_an_export_using_no_feature_stays_version_3() -> None:
    document = export_of(small_program)
    assert document["version"] == 3 and "features" not in document


def test_source_positions_are_project_urls_as_the_engine_writes_them(tmp_path: Path) -> None:
    folder = tmp_path / "my project"
    folder.mkdir()
    (folder / "Pulumi.yaml").write_text("name: acme\nruntime: python\n")
    (folder / "__main__.py").write_text(
        "import pulumi_aws as aws\n\n\ndef make():\n    aws.s3.Bucket('b')\n\n\nmake()\n"
    )
    export = tmp_path / "export.json"
    result = CliRunner().invoke(
        main, ["preview", "--program", str(folder), "--stack", "dev", "--export", str(export)]
    )
    assert result.exit_code == 0, result.output
    document = json.loads(export.read_text())
    validate_export(document)
    bucket = next(r for r in document["deployment"]["resources"] if r["urn"].endswith("::b"))
    assert re.fullmatch(r"project:///__main__\.py#5(,\d+)?", bucket["sourcePosition"])
    frames = [frame["sourcePosition"] for frame in bucket["stackTrace"]]
    assert any(re.fullmatch(r"project:///__main__\.py#8(,\d+)?", f) for f in frames)
    # Read back (check and cost from an export): the file, relative to the project root.
    (resource,) = [r for r in from_deployment(document, "export.json") if r.name == "b"]
    assert resource.source == ("__main__.py", 5)


def test_an_output_named_secret_twice_or_secret_already_is_wrapped_once() -> None:
    def program() -> None:
        aws.ec2.Instance(
            "gpu",
            instance_type=pulumi.Output.secret("g5.12xlarge"),
            ami="ami-1",
            opts=pulumi.ResourceOptions(
                additional_secret_outputs=["instanceType", "instance_type", "ami", "ami"]
            ),
        )

    document = export_of(program)
    gpu = next(r for r in document["deployment"]["resources"] if r["urn"].endswith("::gpu"))
    for key, plain in (("instanceType", "g5.12xlarge"), ("ami", "ami-1")):
        assert gpu["outputs"][key] == {SIG_KEY: SECRET_SIG, "plaintext": json.dumps(plain)}


def test_dependencies_are_in_one_order_whatever_the_hash_seed() -> None:
    # The SDK gathers a resource's dependencies in a set: without an order of the capture's
    # own, two exports of one program differ from run to run.
    def program() -> None:
        buckets = [aws.s3.Bucket(name) for name in ("zeta", "alpha", "mu", "beta", "omega")]
        aws.s3.BucketPolicy(
            "policy",
            bucket=buckets[0].id,
            policy=pulumi.Output.all(*(b.arn for b in buckets)).apply(json.dumps),
            opts=pulumi.ResourceOptions(depends_on=list(reversed(buckets))),
        )

    document = export_of(program, project="acme", stack="dev")
    policy = next(r for r in document["deployment"]["resources"] if r["urn"].endswith("::policy"))
    assert len(policy["dependencies"]) == 5
    assert policy["dependencies"] == sorted(policy["dependencies"])
    assert list(policy["propertyDependencies"]) == sorted(policy["propertyDependencies"])
    assert all(urns == sorted(urns) for urns in policy["propertyDependencies"].values())
    assert len(policy["propertyDependencies"]["policy"]) == 5

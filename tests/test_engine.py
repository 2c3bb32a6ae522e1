"""The offline engine: what a capture records, transforms, unknowns in a preview, the stack
export format, and running program directories (ours and users')."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pulumi
import pulumi_aws as aws
import pytest
from click.testing import CliRunner
from pulumi import automation

from gpufleet.cli.main import main
from gpufleet.engine.capture import Capture, capture_program
from gpufleet.engine.program_dir import ProgramError, run_program_dir
from gpufleet.engine.stack_export import STACK_EXPORT_SCHEMA, deployment
from gpufleet.engine.wire import SECRET_SIG, SIG_KEY, UNKNOWN, contains_unknown

from .conftest import ROOT

PROGRAMS = Path(__file__).parent / "programs"
GPUFLEET = [sys.executable, "-m", "gpufleet"]


class Pool(pulumi.ComponentResource):
    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("acme:compute:Pool", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.role = aws.iam.Role(f"{name}-role", assume_role_policy="{}", opts=child)
        self.profile = aws.iam.InstanceProfile(f"{name}-profile", role=self.role.name, opts=child)
        self.register_outputs({"role": self.role.arn})


def small_program() -> None:
    pool = Pool("pool")
    aws.s3.Bucket(
        "ckpt",
        tags={"uses": pool.role.arn},
        opts=pulumi.ResourceOptions(protect=True, ignore_changes=["tags"]),
    )
    pulumi.export("role", pool.role.arn)


def test_capture_records_the_engine_view() -> None:
    cap = capture_program(small_program, project="acme", stack="dev").capture
    bucket = cap.one("aws:s3/bucket:Bucket")
    role = cap.one("aws:iam/role:Role")
    pool = cap.one("acme:compute:Pool")
    # URNs as the engine forms them: no Stack in the type chain, the parent's type for children.
    assert bucket.urn == "urn:pulumi:dev::acme::aws:s3/bucket:Bucket::ckpt"
    assert role.urn == "urn:pulumi:dev::acme::acme:compute:Pool$aws:iam/role:Role::pool-role"
    assert role.parent == pool.urn and pool.parent == cap.stack_urn
    assert (bucket.protect, bucket.ignore_changes) == (True, ["tags"])
    assert bucket.property_dependencies["tags"] == [role.urn]
    assert role.urn in bucket.dependencies
    assert bucket.inputs["tags"]["uses"] == "arn:aws:iam::123456789012:role/pool-role"
    assert bucket.source is not None and bucket.source[0].endswith("test_engine.py")
    assert pool.outputs == {"role": "arn:aws:iam::123456789012:role/pool-role"}
    assert cap.exports == {"role": "arn:aws:iam::123456789012:role/pool-role"}


def test_preview_leaves_computed_values_unknown() -> None:
    cap = capture_program(small_program, stack="dev", preview=True).capture
    bucket = cap.one("aws:s3/bucket:Bucket")
    profile = cap.one("aws:iam/instanceProfile:InstanceProfile")
    assert bucket.inputs["tags"]["uses"] == UNKNOWN
    assert profile.inputs["role"] == UNKNOWN  # the role's name is computed (auto-named)
    assert contains_unknown(bucket.inputs) and bucket.id == ""
    assert cap.exports == {"role": UNKNOWN}
    # Inputs known at preview time stay known.
    role = cap.one("aws:iam/role:Role")
    assert role.inputs["assumeRolePolicy"] == "{}"


def tag_everything(args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult | None:
    if args.type_ not in ("aws:s3/bucket:Bucket", "aws:iam/role:Role"):
        return None
    props = {**args.props, "tags": {**(args.props.get("tags") or {}), "cost-center": "cc-1"}}
    return pulumi.ResourceTransformResult(props, args.opts)


def protect_children(args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult:
    return pulumi.ResourceTransformResult(
        args.props, pulumi.ResourceOptions.merge(args.opts, pulumi.ResourceOptions(protect=True))
    )


def test_stack_transforms_take_effect_in_the_capture() -> None:
    def program() -> None:
        pulumi.runtime.register_resource_transform(tag_everything)
        small_program()

    cap = capture_program(program).capture
    assert cap.one("aws:s3/bucket:Bucket").inputs["tags"]["cost-center"] == "cc-1"
    # A resource nested in a component gets the stack transform too.
    assert cap.one("aws:iam/role:Role").inputs["tags"] == {"cost-center": "cc-1"}
    assert "tags" not in cap.one("aws:iam/instanceProfile:InstanceProfile").inputs


def test_resource_transforms_apply_to_the_resource_and_its_children() -> None:
    def program() -> None:
        Pool("guarded", pulumi.ResourceOptions(transforms=[protect_children]))
        Pool("plain")

    cap = capture_program(program).capture
    protected = {r.name for r in cap.registrations if r.protect}
    assert protected == {"guarded", "guarded-role", "guarded-profile"}


def test_without_transforms_nothing_is_tagged() -> None:
    # The control for the two tests above: the tags come from the transform.
    cap = capture_program(small_program).capture
    assert "cost-center" not in cap.one("aws:s3/bucket:Bucket").inputs["tags"]


# --- stack export -------------------------------------------------------------------------------


def export_of(program, **kw) -> dict:
    return deployment(capture_program(program, **kw).capture)


def validate_export(document: dict) -> None:
    schema = json.loads(STACK_EXPORT_SCHEMA.read_text())
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).validate(
        document
    )


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
def test_the_export_schema_rejects_broken_documents(mutate) -> None:
    document = export_of(small_program)
    mutate(document)
    with pytest.raises(jsonschema.ValidationError):
        validate_export(document)


# --- program directories ------------------------------------------------------------------------


def test_a_plain_pulumi_program_with_its_stack_config() -> None:
    cap = run_program_dir(PROGRAMS / "plain_aws", "dev")
    assert (cap.project, cap.stack) == ("plain-aws", "dev")
    instances = cap.of_type("aws:ec2/instance:Instance")
    assert [i.name for i in instances] == ["worker-0", "worker-1"]  # instanceCount: 2
    template = cap.one("aws:ec2/launchTemplate:LaunchTemplate")
    for resource in [*instances, template, cap.one("aws:s3/bucket:Bucket")]:
        # The stack transform (in a sibling module the program imports) tagged them all.
        assert resource.inputs["tags"] == {"team": "search", "managed-by": "transform"}
    assert all(template.urn in i.dependencies for i in instances)
    assert cap.exports["templateId"] == template.id
    assert cap.exports["secretSeen"] is True  # a secure: value is readable (as a placeholder)


def test_preview_cli_on_a_plain_program_json_and_export(tmp_path: Path) -> None:
    out = tmp_path / "export.json"
    result = CliRunner().invoke(
        main,
        [
            "preview",
            "--program",
            str(PROGRAMS / "plain_aws"),
            "--stack",
            "dev",
            "--format",
            "json",
            "--preview",
            "--export",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["resources"] == 4 and summary["preview"] is True
    assert summary["counts"]["aws:ec2/instance:Instance"] == 2
    assert summary["exports"]["templateId"] == UNKNOWN
    validate_export(json.loads(out.read_text()))


@pytest.mark.parametrize("run", range(3))  # shutdown noise, when it came, was intermittent
def test_a_failing_program_reports_its_error_and_resource(run: int) -> None:
    result = subprocess.run(
        [*GPUFLEET, "preview", "--program", "tests/programs/failing", "--stack", "dev"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    # Exactly one line: the error, the resource being built and where; no traceback, no noise.
    assert result.stderr == (
        "program failed while building acme:compute:GpuPool 'huge' at __main__.py:12: "
        "ValueError: a pool holds at most 8 GPUs, asked for 64\n"
    )


def test_not_a_project_directory(tmp_path: Path) -> None:
    with pytest.raises(ProgramError, match=r"no Pulumi\.yaml"):
        run_program_dir(tmp_path, "dev")
    result = CliRunner().invoke(main, ["preview", "--program", str(tmp_path), "--stack", "dev"])
    assert result.exit_code == 2 and "no Pulumi.yaml" in result.stderr


def test_bad_stack_config_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    (tmp_path / "__main__.py").write_text("")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: [unclosed\n")
    result = CliRunner().invoke(main, ["preview", "--program", str(tmp_path), "--stack", "dev"])
    assert result.exit_code == 2
    assert "Pulumi.dev.yaml:" in result.stderr and "not valid YAML" in result.stderr


def test_a_stack_without_config_among_configured_ones_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    (tmp_path / "__main__.py").write_text("")
    # No stack config files at all: Pulumi runs the stack with empty config, and so do we.
    assert run_program_dir(tmp_path, "dev").registrations == []
    (tmp_path / "Pulumi.prod.yaml").write_text("config: {}\n")
    (tmp_path / "Pulumi.staging.yaml").write_text("config: {}\n")
    result = CliRunner().invoke(main, ["preview", "--program", str(tmp_path), "--stack", "prdo"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"{tmp_path / 'Pulumi.prdo.yaml'}: no such stack config (stacks here: prod, staging); "
        "create it (empty is fine) or pass --config FILE\n"
    )
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    result = CliRunner().invoke(
        main, ["preview", "--program", str(tmp_path), "--stack", "prdo", "--config", str(empty)]
    )
    assert result.exit_code == 0, result.output


def test_live_commands_say_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    result = CliRunner().invoke(main, ["preview", "--env", "prod", "--live"])
    assert result.exit_code == 2 and "need the Pulumi CLI" in result.stderr
    result = CliRunner().invoke(main, ["up", "--env", "prod", "--yes"])
    assert result.exit_code == 2 and "gpufleet preview --env prod" in result.stderr


def test_capture_type_helpers() -> None:
    cap: Capture = capture_program(small_program).capture
    assert cap.named("pool-role").type == "aws:iam/role:Role"
    with pytest.raises(LookupError):
        cap.one("aws:ec2/instance:Instance")


def test_config_file_option_replaces_the_stack_file(tmp_path: Path) -> None:
    other = tmp_path / "other.yaml"
    other.write_text("config:\n  plain-aws:team: ranking\n  plain-aws:instanceCount: 1\n")
    result = CliRunner().invoke(
        main,
        [
            "preview",
            "--program",
            str(PROGRAMS / "plain_aws"),
            "--stack",
            "dev",
            "--config",
            str(other),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    tree = json.loads(result.stdout)["tree"]
    assert [n["name"] for n in tree if n["type"] == "aws:ec2/instance:Instance"] == ["worker-0"]
    cap = run_program_dir(PROGRAMS / "plain_aws", "dev", config_file=other)
    assert cap.one("aws:s3/bucket:Bucket").inputs["tags"]["team"] == "ranking"

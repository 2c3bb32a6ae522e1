"""``pulumi.StackReference`` under the offline engine: the outputs of the file the user names
(``--stack-reference NAME=FILE``, an export or ``pulumi stack output --json``), secrets kept
secret; else unknown, never None and never a crash, in a preview and out of one. Programs run
in their own process, as ``gpufleet`` runs them."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gpufleet.cli.main import main
from gpufleet.engine.program_dir import ProgramError, run_program
from gpufleet.engine.stack_references import StackReferenceError, read_stack_outputs
from gpufleet.engine.wire import SECRET_PLACEHOLDER, SECRET_SIG, SIG_KEY, UNKNOWN, secret

PROGRAM = """\
import pulumi
import pulumi_aws as aws

network = pulumi.StackReference("acme/network/prod")
# Named apart from the stack it reads; no file is given for that stack.
other = pulumi.StackReference("other", stack_name="acme/other/prod")


async def details(ref, name):
    found = await ref.get_output_details(name)
    return {"value": found.value, "secret": found.secret_value}


def facts(output):
    return pulumi.Output.all(known=output.is_known(), secret=output.is_secret())


vpc = network.get_output("vpcId")
pulumi.export("vpc", vpc)
pulumi.export("vpcFacts", facts(vpc))
pulumi.export("vpcRequired", network.require_output("vpcId"))
pulumi.export("vpcUpper", vpc.apply(lambda v: v.upper()))
pulumi.export("password", network.get_output("dbPassword"))
pulumi.export("passwordFacts", facts(network.get_output("dbPassword")))
pulumi.export("secretNames", network.secret_output_names)
pulumi.export("vpcDetails", details(network, "vpcId"))
pulumi.export("passwordDetails", details(network, "dbPassword"))

unknown = other.get_output("vpcId")
pulumi.export("otherVpc", unknown)
pulumi.export("otherVpcFacts", facts(unknown))
pulumi.export("otherRequired", other.require_output("noSuchOutput"))
pulumi.export("otherUpper", unknown.apply(lambda v: v.upper()))
pulumi.export("otherOutputsKnown", other.outputs.is_known())
pulumi.export("otherDetails", details(other, "vpcId"))

known_subnet = aws.ec2.Subnet("known", vpc_id=vpc, cidr_block="10.0.0.0/24")
unknown_subnet = aws.ec2.Subnet("unknown", vpc_id=unknown, cidr_block="10.0.1.0/24")
# What a resource given an unknown answers for it is unknown too.
pulumi.export("knownSubnetVpc", known_subnet.vpc_id.apply(lambda v: v.upper()))
pulumi.export("unknownSubnetVpc", unknown_subnet.vpc_id.apply(lambda v: v.upper()))
"""

OUTPUTS = {"vpcId": "vpc-0abc", "dbPassword": "[secret]", "count": 3}
EXPORT = {
    "version": 3,
    "deployment": {
        "manifest": {"time": "2026-11-01T00:00:00Z", "magic": "", "version": "v3.200.0"},
        "resources": [
            {
                "urn": "urn:pulumi:prod::network::pulumi:pulumi:Stack::network-prod",
                "type": "pulumi:pulumi:Stack",
                "custom": False,
                "outputs": {
                    "vpcId": "vpc-0abc",
                    "dbPassword": {SIG_KEY: SECRET_SIG, "plaintext": '"hunter2"'},
                    "count": 3,
                },
            },
            {
                "urn": "urn:pulumi:prod::network::pulumi:providers:aws::default",
                "type": "pulumi:providers:aws",
                "custom": True,
                "outputs": {"region": "us-east-1"},
            },
        ],
    },
}


def project(tmp_path: Path) -> Path:
    program = tmp_path / "program"
    program.mkdir()
    (program / "Pulumi.yaml").write_text("name: consumer\nruntime: python\n")
    (program / "__main__.py").write_text(PROGRAM)
    return program


def write(tmp_path: Path, name: str, document: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document, indent=2))
    return path


@pytest.mark.parametrize(
    ("form", "preview"), [("outputs", False), ("outputs", True), ("export", False)]
)
def test_a_named_stack_reads_its_file_and_any_other_is_unknown(
    tmp_path: Path, form: str, preview: bool
) -> None:
    file = write(tmp_path, f"{form}.json", OUTPUTS if form == "outputs" else EXPORT)
    run = run_program(
        project(tmp_path),
        "dev",
        preview=preview,
        stack_references=[("acme/network/prod", file)],
    )
    assert run.ending.finished, run.ending.summary
    exports = run.capture.exports
    assert exports["vpc"] == exports["vpcRequired"] == "vpc-0abc"
    assert exports["vpcFacts"] == {"known": True, "secret": False}
    assert exports["vpcUpper"] == "VPC-0ABC"
    assert exports["vpcDetails"] == {"value": "vpc-0abc", "secret": None}
    # A secret stays secret (the export's plaintext; the "[secret]" of stack output --json).
    password = "hunter2" if form == "export" else SECRET_PLACEHOLDER
    assert exports["password"] == secret(password)
    assert exports["passwordFacts"] == {"known": True, "secret": True}
    assert exports["passwordDetails"] == {"value": None, "secret": password}
    assert exports["secretNames"] == ["dbPassword"]
    # No file for the other stack: unknown, not None; applies on it do not run.
    assert exports["otherVpc"] == exports["otherRequired"] == exports["otherUpper"] == UNKNOWN
    assert exports["otherVpcFacts"] == {"known": False, "secret": False}
    assert exports["otherOutputsKnown"] is False
    assert exports["otherDetails"] == {"value": None, "secret": None}
    # What a resource is given: the referenced value, or unknown (as a policy then sees it).
    subnets = {r.name: r.inputs["vpcId"] for r in run.capture.registrations}
    assert subnets == {"known": "vpc-0abc", "unknown": UNKNOWN}
    assert exports["knownSubnetVpc"] == "VPC-0ABC"
    assert exports["unknownSubnetVpc"] == UNKNOWN


def test_a_reference_without_a_file_is_unknown_in_a_preview_too(tmp_path: Path) -> None:
    run = run_program(project(tmp_path), "dev", preview=True)
    assert run.ending.finished, run.ending.summary
    exports = run.capture.exports
    assert exports["vpc"] == exports["otherVpc"] == exports["vpcUpper"] == UNKNOWN
    assert exports["otherOutputsKnown"] is False


def test_an_export_encrypted_for_its_stack_keeps_its_secret_unread(tmp_path: Path) -> None:
    document = json.loads(json.dumps(EXPORT))
    stack = document["deployment"]["resources"][0]
    stack["outputs"]["dbPassword"] = {SIG_KEY: SECRET_SIG, "ciphertext": "v1:AAAA"}
    stack["outputs"]["nested"] = {"inner": {SIG_KEY: SECRET_SIG, "plaintext": "4"}}
    read = read_stack_outputs(write(tmp_path, "export.json", document))
    assert read == {
        "outputs": {
            "vpcId": "vpc-0abc",
            "dbPassword": secret(SECRET_PLACEHOLDER),
            "count": 3,
            "nested": {"inner": secret(4)},
        },
        "secretOutputNames": ["dbPassword", "nested"],
    }


def test_a_never_deployed_stack_has_no_outputs(tmp_path: Path) -> None:
    document = {"version": 3, "deployment": {"manifest": {}, "resources": [EXPORT_STACK]}}
    read = read_stack_outputs(write(tmp_path, "export.json", document))
    assert read == {"outputs": {}, "secretOutputNames": []}


EXPORT_STACK = {
    "urn": "urn:pulumi:prod::network::pulumi:pulumi:Stack::network-prod",
    "type": "pulumi:pulumi:Stack",
}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[1, 2]", ":1: json: expected a JSON object: stack outputs "),
        ('{\n  "a": 1,\n  "b": \n}', ":4: json: not valid JSON: Expecting value"),
        ('{"a": NaN}', ":1: json: not valid JSON: NaN is not a finite number"),
        (
            '{\n  "version": 2,\n  "deployment": {}\n}',
            ":2: version: not a stack export (expected version: 3 or 4)",
        ),
        (
            '{"version": 3,\n "deployment": {\n  "resources": {}}}',
            ":3: deployment.resources: not a list (not a stack export?)",
        ),
        (
            '{"version": 3,\n "deployment": {\n  "resources": []}}',
            ":3: deployment.resources: no pulumi:pulumi:Stack resource, so no stack outputs",
        ),
        (
            json.dumps(
                {"version": 3, "deployment": {"resources": [{**EXPORT_STACK, "outputs": [1]}]}},
                indent=1,
            ),
            ":8: deployment.resources[0].outputs: expected an object, not a list",
        ),
        (
            json.dumps(
                {
                    "version": 4,
                    "deployment": {
                        "resources": [
                            {
                                **EXPORT_STACK,
                                "outputs": {"a": {SIG_KEY: SECRET_SIG, "plaintext": "{"}},
                            }
                        ]
                    },
                },
                indent=1,
            ),
            ":8: deployment.resources[0].outputs: a secret's plaintext is not JSON text",
        ),
        (
            json.dumps(
                {"version": 3, "deployment": {"resources": [EXPORT_STACK, EXPORT_STACK]}},
                indent=1,
            ),
            ":11: deployment.resources[1].type: a second pulumi:pulumi:Stack resource",
        ),
    ],
)
def test_a_file_that_is_not_stack_outputs_is_one_line(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = tmp_path / "outputs.json"
    path.write_text(text)
    with pytest.raises(StackReferenceError) as raised:
        read_stack_outputs(path)
    assert str(raised.value).startswith(f"{path}{problem}")
    assert "\n" not in str(raised.value)


def test_the_command_line_refuses_what_it_cannot_use(tmp_path: Path) -> None:
    program = project(tmp_path)
    good = write(tmp_path, "good.json", OUTPUTS)
    base = ["preview", "--program", str(program), "--stack", "dev"]

    def run(*args: str) -> tuple[int, list[str]]:
        result = CliRunner().invoke(main, [*base, *args])
        return result.exit_code, result.stderr.splitlines()

    code, lines = run("--stack-reference", f"a={good}", "--stack-reference", f"a={good}")
    assert code == 2 and lines[-1] == (
        "Error: Invalid value for '--stack-reference': stack 'a' given twice"
    )
    code, lines = run("--stack-reference", str(good))
    assert code == 2 and lines[-1] == (
        f"Error: Invalid value for '--stack-reference': '{good}' is not NAME=FILE"
    )
    code, lines = run("--stack-reference", "acme/network/prod=")
    assert code == 2 and lines[-1].endswith("'acme/network/prod=' is not NAME=FILE")
    # An unreadable or malformed file: one line, file:line: field: message.
    code, lines = run("--stack-reference", f"acme/network/prod={tmp_path / 'missing.json'}")
    assert code == 2
    assert lines == [f"{tmp_path / 'missing.json'}:1: file: cannot read: No such file or directory"]
    bad = tmp_path / "bad.json"
    bad.write_text("{\n")
    code, lines = run("--stack-reference", f"acme/network/prod={bad}")
    assert code == 2 and len(lines) == 1 and lines[0].startswith(f"{bad}:2: json: not valid JSON")


def test_an_export_to_check_takes_no_stack_reference(tmp_path: Path) -> None:
    """The export holds what its references read when it was made."""
    from gpufleet.engine.stack_source import StackSource, load_stack

    source = StackSource(
        "dev",
        project(tmp_path),
        export_file=write(tmp_path, "export.json", EXPORT),
        stack_references=(("acme/network/prod", write(tmp_path, "o.json", OUTPUTS)),),
    )
    with pytest.raises(ProgramError, match=r"^--stack-reference: only for running a program"):
        load_stack(source)


def test_check_reads_the_named_stack_and_sizes_what_it_could_not(tmp_path: Path) -> None:
    """The instance type comes from another stack: unknown without its file (a GPU size the
    check cannot determine), the file's value with it."""
    program = tmp_path / "sized"
    program.mkdir()
    (program / "Pulumi.yaml").write_text("name: sized\nruntime: python\n")
    (program / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-1\n")
    (program / "__main__.py").write_text(
        textwrap.dedent(
            """\
            import pulumi
            import pulumi_aws as aws

            sizing = pulumi.StackReference("acme/sizing/prod")
            aws.ec2.Instance(
                "gpu",
                instance_type=sizing.require_output("instanceType"),
                ami="ami-12345678",
                tags={"project": "p", "owner": "o", "cost-center": "c", "environment": "dev"},
                metadata_options={"http_tokens": "required"},
            )
            """
        )
    )
    sizing = write(tmp_path, "sizing.json", {"instanceType": "p5.48xlarge"})
    args = ["check", "--program", str(program), "--stack", "dev", "--format", "json"]

    def policies(*extra: str) -> set[str]:
        result = CliRunner().invoke(main, [*args, *extra])
        assert result.exit_code in (0, 1), result.output
        return {f["policy"] for f in json.loads(result.stdout)["findings"]}

    assert "gpu-size-undetermined" in policies()
    assert "gpu-size-undetermined" not in policies(
        "--stack-reference", f"acme/sizing/prod={sizing}"
    )

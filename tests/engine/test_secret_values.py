"""Secrets through the offline engine as the Pulumi engine lets them through: inputs of any type
secret; realistic outputs computed from their plain values, an output secret where its input
of that name was, ids plain. ``secure:`` config of any type: text as a secret placeholder,
typed secret reads unknown and secret, plain typed reads one line saying what to do. Programs
run in their own process, as ``gpufleet`` runs them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpufleet.engine.analyzer_resources import from_capture
from gpufleet.engine.program_dir import run_program
from gpufleet.engine.wire import OFFLINE_UNKNOWN, SECRET_PLACEHOLDER, UNKNOWN, secret

INPUTS_PROGRAM = """\
import pulumi
import pulumi_aws as aws
import pulumi_azure_native as azure
import pulumi_gcp as gcp

s = pulumi.Output.secret
bucket = aws.s3.Bucket(
    "ckpt", bucket=s("my-bucket"), tags={"team": s("ml")}, force_destroy=s(True)
)
queue = aws.sqs.Queue("jobs", name=s("jobs"), delay_seconds=s(5), tags=s({"a": "b"}))
eu = aws.Provider("eu", region=s("eu-west-1"))
queue_eu = aws.sqs.Queue("jobs-eu", opts=pulumi.ResourceOptions(provider=eu))
node = aws.ec2.Instance(
    "node",
    instance_type=s("p5.48xlarge"),
    ami="ami-12345678",
    vpc_security_group_ids=s(["sg-1", "sg-2"]),
    cpu_options=s({"core_count": 4}),
)
account = gcp.serviceaccount.Account("trainer", account_id=s("trainer"))
vm = gcp.compute.Instance(
    "vm",
    machine_type="a2-highgpu-1g",
    zone=s("us-central1-a"),
    boot_disk={"initialize_params": {"image": "debian-12"}},
    network_interfaces=[{"network": "default"}],
)
group = azure.resources.ResourceGroup("rg", resource_group_name=s("rg-ml"))
workspace = azure.machinelearningservices.Workspace(
    "ws",
    resource_group_name=group.name,
    identity=s({"type": "SystemAssigned"}),
)

pulumi.export("bucketId", bucket.id)
pulumi.export("bucketName", bucket.bucket)
pulumi.export("bucketArn", bucket.arn)
pulumi.export("bucketTags", bucket.tags)
pulumi.export("forceDestroy", bucket.force_destroy)
pulumi.export("queueUrl", queue.url)
pulumi.export("queueDelay", queue.delay_seconds)
pulumi.export("queueTags", queue.tags)
pulumi.export("euQueueUrl", queue_eu.url)
pulumi.export("nodeType", node.instance_type)
pulumi.export("nodeGroups", node.vpc_security_group_ids)
pulumi.export("nodeCpu", node.cpu_options)
pulumi.export("accountEmail", account.email)
pulumi.export("vmZone", vm.zone)
pulumi.export("vmSelfLink", vm.self_link)
pulumi.export("groupId", group.id)
pulumi.export("workspaceIdentity", workspace.identity.apply(lambda i: i.principal_id))
"""


def project(tmp_path: Path, program: str, config: str = "") -> Path:
    directory = tmp_path / "program"
    directory.mkdir()
    (directory / "Pulumi.yaml").write_text("name: secrets\nruntime: python\n")
    (directory / "Pulumi.dev.yaml").write_text(config or "config: {}\n")
    (directory / "__main__.py").write_text(program)
    return directory


def test_secret_inputs_of_every_type_give_realistic_outputs_secret_where_given(
    tmp_path: Path,
) -> None:
    run = run_program(project(tmp_path, INPUTS_PROGRAM), "dev")
    assert run.ending.finished, run.ending.summary
    exports = run.capture.exports
    # Computed from the plain value; the id plain (as the engine keeps ids), the output of the
    # secret input's own name secret, what is derived under another name plain.
    assert exports["bucketId"] == "my-bucket"
    assert exports["bucketName"] == secret("my-bucket")
    assert exports["bucketArn"] == "arn:aws:s3:::my-bucket"
    # A secret inside an object or list makes the whole output secret, as the SDK sends it.
    assert exports["bucketTags"] == secret({"team": "ml"})
    assert exports["forceDestroy"] == secret(True)
    assert exports["queueUrl"] == "https://sqs.us-east-1.amazonaws.com/123456789012/jobs"
    assert exports["queueDelay"] == secret(5)
    assert exports["queueTags"] == secret({"a": "b"})
    # A provider's secret region still places what it makes.
    assert exports["euQueueUrl"].startswith("https://sqs.eu-west-1.amazonaws.com/")
    assert exports["nodeType"] == secret("p5.48xlarge")
    assert exports["nodeGroups"] == secret(["sg-1", "sg-2"])
    assert exports["nodeCpu"] == secret({"coreCount": 4})
    assert exports["accountEmail"] == "trainer@acme-ml-prod.iam.gserviceaccount.com"
    assert exports["vmZone"] == secret("us-central1-a")
    assert "/zones/us-central1-a/instances/" in exports["vmSelfLink"]
    assert "/resourceGroups/rg-ml/providers/" in exports["groupId"]
    # A secret object input: the provider's additions inside it, and secret as a whole.
    identity = run.capture.named("ws").outputs["identity"]
    assert identity == secret(identity["value"]) and identity["value"]["type"] == "SystemAssigned"
    assert identity["value"]["principalId"].endswith("-0000-0000-0000-000000000000")
    assert exports["workspaceIdentity"] == secret(identity["value"]["principalId"])
    # The engine's record of each resource keeps its secret inputs marked.
    node = run.capture.named("node")
    assert node.inputs["instanceType"] == secret("p5.48xlarge")
    assert node.id == "node-id"


@pytest.mark.parametrize("preview", [False, True])
def test_secret_inputs_in_a_preview_stay_secret(tmp_path: Path, preview: bool) -> None:
    program = """\
import pulumi
import pulumi_aws as aws

bucket = aws.s3.Bucket("b", bucket=pulumi.Output.secret("my-bucket"), tags={"a": "b"})
pulumi.export("name", bucket.bucket)
pulumi.export("arnKnown", bucket.arn.is_known())
"""
    run = run_program(project(tmp_path, program), "dev", preview=preview)
    assert run.ending.finished, run.ending.summary
    assert run.capture.exports == {"name": secret("my-bucket"), "arnKnown": not preview}


SECURE = "\n    secure: v1:ZmFrZWNpcGhlcnRleHQ="
CONFIG = f"""\
config:
  secrets:count:{SECURE}
  secrets:spot:{SECURE}
  secrets:ratio:{SECURE}
  secrets:settings:{SECURE}
  secrets:password:{SECURE}
  secrets:nested:
    region: us-east-1
    token:{SECURE.replace(chr(10) + "    ", chr(10) + "      ")}
  secrets:plainCount: 3
"""

CONFIG_PROGRAM = """\
import pulumi
import pulumi_aws as aws

config = pulumi.Config()


def facts(output):
    return pulumi.Output.all(known=output.is_known(), secret=output.is_secret())


count = config.require_secret_int("count")
values = {
    "count": count,
    "spot": config.require_secret_bool("spot"),
    "ratio": config.get_secret_float("ratio"),
    "settings": config.require_secret_object("settings"),
    "password": config.require_secret("password"),
    "nested": config.require_secret_object("nested"),
    "plainCount": config.require_secret_int("plainCount"),
}
for name, value in values.items():
    pulumi.export(name, value)
    pulumi.export(name + "Facts", facts(value))
pulumi.export("countPlusOne", count.apply(lambda n: n + 1))
pulumi.export("nestedPlain", config.require_object("nested"))
pulumi.export("absent", config.get_secret_int("absent") is None)
aws.autoscaling.Group("pool", min_size=0, max_size=count, availability_zones=["us-east-1a"])
{then}
"""


def _facts(exports: dict[str, Any], name: str) -> tuple[bool, bool]:
    facts = exports[name + "Facts"]
    return facts["known"], facts["secret"]


@pytest.mark.parametrize("preview", [False, True])
def test_secure_config_of_every_type_reads_offline(tmp_path: Path, preview: bool) -> None:
    directory = project(tmp_path, CONFIG_PROGRAM.replace("{then}", ""), CONFIG)
    run = run_program(directory, "dev", preview=preview)
    assert run.ending.finished, run.ending.summary
    exports = run.capture.exports
    # Typed secrets: unknown and secret; applies on them do not run.
    for name in ("count", "spot", "ratio", "settings"):
        assert _facts(exports, name) == (False, True), name
    assert exports["countPlusOne"] == secret(UNKNOWN)
    # Text: the placeholder, secret.
    assert exports["password"] == secret(SECRET_PLACEHOLDER)
    assert _facts(exports, "password") == (True, True)
    # Inside an object: the placeholder at its place; the key is secret.
    nested = {"region": "us-east-1", "token": SECRET_PLACEHOLDER}
    assert exports["nested"] == secret(nested)
    assert exports["nestedPlain"] == nested
    assert exports["plainCount"] == secret(3)
    assert exports["absent"] is True
    # The group's size comes from the secret: unknown to whatever reads the stack, and not a
    # preview's unknown (a real preview decrypts it): not known offline, in either mode.
    pool = run.capture.named("pool")
    assert pool.inputs["maxSize"] == secret(UNKNOWN)
    assert pool.undecrypted_properties == ("maxSize",)
    (resource,) = [r for r in from_capture(run.capture) if r.name == "pool"]
    assert resource.inputs["maxSize"] == secret(OFFLINE_UNKNOWN)
    # What it depended on is no resource: no dependency of it is left behind.
    assert not any("UndecryptedSecret" in urn for urn in pool.dependencies)
    assert not any(
        "UndecryptedSecret" in u for us in pool.property_dependencies.values() for u in us
    )


@pytest.mark.parametrize(
    ("getter", "kind"),
    [
        ("require_int", "int"),
        ("get_bool", "bool"),
        ("get_float", "float"),
        ("require_object", "object"),
    ],
)
def test_a_plain_typed_read_of_a_secure_value_says_what_to_do(
    tmp_path: Path, getter: str, kind: str
) -> None:
    key = {"int": "count", "bool": "spot", "float": "ratio", "object": "settings"}[kind]
    then = f"config.{getter}({key!r})"
    run = run_program(project(tmp_path, CONFIG_PROGRAM.replace("{then}", then), CONFIG), "dev")
    assert not run.ending.finished
    secret_getter = getter.replace("_", "_secret_", 1)
    line = CONFIG_PROGRAM.splitlines().index("{then}") + 1
    assert run.ending.summary == (
        f"raised SecretConfigOfflineError at __main__.py:{line}: config secrets:{key} is a secret "
        f"(secure:) that cannot be decrypted offline, and {getter} needs its {kind} value: "
        "give the value in plain text in a stack config passed with --config, or read it "
        f"with {secret_getter} (unknown offline)"
    )

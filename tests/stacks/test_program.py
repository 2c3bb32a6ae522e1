"""The stacks program previewed offline: every environment of the example and every component kind
from a generated stack; missing and bad stack config named by key."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpufleet.cli.main import main
from gpufleet.engine.program_dir import ProgramRunError, run_program_dir
from gpufleet.engine.wire import UNKNOWN
from tests.helpers import EXAMPLE, EXAMPLE_ENVS, ROOT


def generate(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["generate", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("env", EXAMPLE_ENVS)
def test_example_stacks_preview_offline(env: str) -> None:
    cap = run_program_dir(ROOT, env)
    config = json.loads(
        json.dumps(
            __import__("yaml").safe_load((ROOT / "stacks" / f"Pulumi.{env}.yaml").read_text())[
                "config"
            ]
        )
    )
    workloads = {w["name"]: w for w in config["gpufleet:workloads"]}
    assert set(cap.exports) == set(workloads)
    providers = {r.name: r for r in cap.registrations if r.is_provider}
    assert set(providers) == {p["name"] for p in config["gpufleet:providers"]}
    for name, workload in workloads.items():
        for part in cap.exports[name]["parts"]:
            component = cap.named(part["name"])
            assert component.type == "gpufleet:" + part["component"]
            # Every custom resource of the workload uses the workload's explicit provider.
            children = [
                r for r in cap.registrations if r.custom and r.urn.split("::")[-1].startswith(name)
            ]
            provider = providers[workload["provider"]]
            assert children and all(r.provider.startswith(provider.urn) for r in children)
    assert not [r for r in cap.registrations if r.custom and not r.provider and not r.is_provider]


def test_dev_runs_on_spot_and_low_priority_only() -> None:
    cap = run_program_dir(ROOT, "dev")
    for template in cap.of_type("gcp:compute/instanceTemplate:InstanceTemplate"):
        assert template.inputs["scheduling"]["provisioningModel"] == "SPOT"
    compute = cap.one("azure-native:machinelearningservices:Compute")
    assert compute.inputs["properties"]["properties"]["vmPriority"] == "LowPriority"
    assert not cap.of_type("gcp:compute/reservation:Reservation")


def test_prod_preview_mode_has_unknown_ids() -> None:
    cap = run_program_dir(ROOT, "prod", preview=True)
    assert cap.exports["ranker-train"]["parts"][0]["roleArn"] == UNKNOWN
    assert cap.one("gcp:compute/reservation:Reservation").protect is True


ALL_COMPONENTS_SPEC = """\
version: 1
project: acme-ml
owner: ml-platform@acme.example
cost_center: cc-1
environments:
  prod: {max_commitment: 1y}
workloads:
  - {name: aws-serve, kind: inference, gpu: {name: L4}, always_on: true,
     replicas: {min: 1, max: 3}, interruptible: true, clouds: [aws], regions: {aws: [us-east-1]}}
  - {name: aws-train, kind: training, gpu: {name: H100, count: 8}, nodes: 2, interruptible: true,
     hours_per_month: 100, clouds: [aws], regions: {aws: [us-east-1]}}
  - {name: az-serve, kind: inference, gpu: {name: A100}, always_on: true,
     replicas: {min: 1, max: 2}, interruptible: true, clouds: [azure], regions: {azure: [eastus]}}
  - {name: gcp-n1, kind: batch, gpu: {name: T4}, hours_per_month: 50, clouds: [gcp],
     regions: {gcp: [us-central1]}}
"""


def site_for(stack: dict) -> str:
    aws_zone = next(w["zone"] for w in stack["gpufleet:workloads"] if w["name"] == "aws-train")
    return textwrap.dedent(
        f"""\
          site:aws:
            regions:
              us-east-1:
                vpcId: vpc-1
                subnets:
                  - {{id: subnet-a, zoneId: {aws_zone}, zone: us-east-1a}}
                  - {{id: subnet-b, zoneId: use1-az9, zone: us-east-1z}}
          site:gcp:
            project: acme-test
            sourceImage: projects/acme-test/global/images/gpu-base
            regions:
              us-central1: {{network: net, subnetwork: sub}}
          site:azure:
            sshPublicKey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGpufleetexamplekey ops@acme
            regions:
              eastus: {{resourceGroupName: rg, subnetId: /subscriptions/x/subnets/gpu}}
        """
    )


def test_every_component_kind_from_a_generated_stack(tmp_path: Path) -> None:
    import yaml

    spec = tmp_path / "spec.yaml"
    spec.write_text(ALL_COMPONENTS_SPEC)
    stacks = tmp_path / "stacks"
    code, _, err = generate(str(spec), "--env", "prod", "--stacks-dir", str(stacks))
    assert code == 0, err
    path = stacks / "Pulumi.prod.yaml"
    stack = yaml.safe_load(path.read_text())["config"]
    path.write_text(path.read_text() + textwrap.indent(site_for(stack), "  "))
    (tmp_path / "Pulumi.yaml").write_text(
        f"name: gpufleet\nruntime: python\nmain: {ROOT / 'stacks'}\nstackConfigDir: stacks\n"
    )
    cap = run_program_dir(tmp_path, "prod")
    kinds = {r.type for r in cap.registrations if r.type.startswith("gpufleet:")}
    assert kinds == {
        "gpufleet:aws:CapacityPool",
        "gpufleet:aws:SpotFleet",
        "gpufleet:aws:PlacementCluster",
        "gpufleet:azure:CapacityReservationGroup",
        "gpufleet:azure:SpotScaleSet",
        "gpufleet:gcp:SpotGroup",
    }
    # Non-interruptible N1 work runs on standard VMs with attached T4s.
    template = cap.one("gcp:compute/instanceTemplate:InstanceTemplate")
    assert template.inputs["scheduling"]["provisioningModel"] == "STANDARD"
    assert template.inputs["guestAccelerators"][0]["type"] == "nvidia-tesla-t4"
    # The cluster sits in the plan's zone's subnet; the reservation in that zone's name.
    asg = cap.named("aws-train-asg")
    assert asg.inputs["vpcZoneIdentifiers"] == ["subnet-a"]
    assert cap.one("aws:ec2/capacityReservation:CapacityReservation").protect is True


def test_missing_site_settings_fail_the_program_clearly(tmp_path: Path) -> None:
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "Pulumi.yaml").write_text(
        f"name: gpufleet\nruntime: python\nmain: {ROOT / 'stacks'}\nstackConfigDir: stacks\n"
    )
    code, _, _ = generate(str(EXAMPLE), "--env", "prod", "--stacks-dir", str(tmp_path / "stacks"))
    assert code == 0
    with pytest.raises(ProgramRunError) as exc:
        run_program_dir(tmp_path, "prod")
    assert "site:gcp is not set in this stack's config" in exc.value.describe()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            ("        vpcId: vpc-0a1b2c3d4e5f6a7b8\n", ""),
            "site:aws.regions.us-west-2.vpcId: Field required",
        ),
        (
            ("  site:azure:\n", "  site:azure: eastus2\n  site:unused:\n"),
            "site:azure is not a YAML",
        ),
        (("  gpufleet:environment: prod\n", ""), "gpufleet:environment: Field required"),
        (("      parts:\n", "      partz:\n"), "gpufleet:workloads.0.parts: Field required"),
        # A hand edit a component cannot build: another cloud's part, a scaling it cannot follow.
        (
            (
                "        - component: gcp:ReservationPool\n",
                "        - component: aws:CapacityPool\n",
            ),
            "parts aws:CapacityPool are not gcp components (the workload's cloud)",
        ),
        (
            (
                "          scaling: on_request\n          expectedHours: 390.0\n",
                "          scaling: on_load\n          expectedHours: 390.0\n",
            ),
            "gcp:CompactCluster on_load is a burst: it follows an always-on (fixed) base part",
        ),
        (
            (
                "          scaling: on_request\n          expectedHours: 390.0\n",
                "          scaling: schedule\n",
            ),
            "gcp:CompactCluster cannot follow scaling schedule (it follows: fixed, on_request)",
        ),
    ],
)
def test_bad_stack_config_stops_the_program_naming_the_key(
    tmp_path: Path, edit: tuple[str, str], message: str
) -> None:
    (tmp_path / "stacks").mkdir()
    text = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text()
    assert edit[0] in text
    (tmp_path / "stacks" / "Pulumi.prod.yaml").write_text(text.replace(edit[0], edit[1], 1))
    (tmp_path / "Pulumi.yaml").write_text(
        f"name: gpufleet\nruntime: python\nmain: {ROOT / 'stacks'}\nstackConfigDir: stacks\n"
    )
    with pytest.raises(ProgramRunError) as exc:
        run_program_dir(tmp_path, "prod")
    assert exc.value.error_type == "RunError" and message in exc.value.message


def test_a_gcp_burst_on_load_is_its_base_groups_second_version() -> None:
    """chat-serving (prod): the reserved base runs in its reservation and the Spot burst above
    it, in one group whose autoscaler reads the group's own CPU (a GCP autoscaler reads no
    other group's)."""
    cap = run_program_dir(ROOT, "prod")
    base, burst = cap.exports["chat-serving"]["parts"]
    assert (burst["name"], burst["version"]) == ("chat-serving-vms", "burst")
    assert burst["instanceGroupManager"] == base["instanceGroupManager"]
    assert not [r for r in cap.registrations if r.name.startswith("chat-serving-burst")]
    (group,) = [
        r
        for r in cap.of_type("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager")
        if r.name.startswith("chat-serving")
    ]
    base_version, burst_version = group.inputs["versions"]
    assert base_version["targetSize"] == {"fixed": 2} and "targetSize" not in burst_version
    (autoscaler,) = [
        r
        for r in cap.of_type("gcp:compute/regionAutoscaler:RegionAutoscaler")
        if r.name.startswith("chat-serving")
    ]
    policy = autoscaler.inputs["autoscalingPolicy"]
    assert (policy["minReplicas"], policy["maxReplicas"]) == (2, 6)

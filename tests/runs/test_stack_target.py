"""The stack a run scales, read as ``gpufleet generate`` wrote it; a missing or edited one is
one line naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.runs.run_parts import ScaleInputError, find_workload
from gpufleet.runs.stack_target import check_site, read_stack
from tests.helpers import ROOT
from tests.runs.stack_files import GCP_PROJECT, write_stack_config


def test_the_example_stacks_read_as_the_program_reads_them() -> None:
    target = read_stack(ROOT, "prod", None)
    assert target.path == ROOT / "stacks" / "Pulumi.prod.yaml"
    assert target.settings.environment == "prod"
    assert "eval-harness" in {w.name for w in target.settings.workloads}
    assert target.site.gcp().project == "acme-ml-prod"


def test_site_settings(tmp_path: Path) -> None:
    target = read_stack(ROOT, "test", write_stack_config(tmp_path))
    assert target.site.gcp().project == GCP_PROJECT
    assert target.site.aws_site is None


def test_no_such_stack(tmp_path: Path) -> None:
    with pytest.raises(ScaleInputError) as error:
        read_stack(ROOT, "nowhere", None)
    assert error.value.problems == [
        f"{ROOT / 'stacks' / 'Pulumi.nowhere.yaml'}: no such stack config; gpufleet generate "
        "SPEC --env nowhere writes it"
    ]


def test_an_edited_stack(tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.test.yaml"
    path.write_text("config:\n  gpufleet:environment: test\n  gpufleet:workloads: 3\n")
    with pytest.raises(ScaleInputError) as error:
        read_stack(ROOT, "test", path)
    [line] = error.value.problems
    assert line.startswith(f"{path}: not what gpufleet generate writes (gpufleet:")


def test_a_run_names_the_site_setting_it_lacks(tmp_path: Path) -> None:
    path = write_stack_config(tmp_path)
    text = path.read_text()
    path.write_text(text.replace("    subscriptionId: ", "    tenant: ").split("  site:gcp:")[0])
    target = read_stack(ROOT, "test", path)
    for name, says in (
        ("gcp-group", "site:gcp is not set in this stack's config"),
        ("azure-set", "site:azure is not set in this stack's config"),
    ):
        workload = find_workload(target.settings, name)
        with pytest.raises(ScaleInputError) as error:
            check_site(target, workload)
        [line] = error.value.problems
        assert line.startswith(f"{path}: {says}")
    check_site(target, find_workload(target.settings, "aws-fleet"))  # AWS needs none


def test_an_azure_run_needs_the_subscription(tmp_path: Path) -> None:
    path = write_stack_config(tmp_path)
    path.write_text(path.read_text().replace("    subscriptionId: ", "    sshPublicKey: "))
    target = read_stack(ROOT, "test", path)
    with pytest.raises(ScaleInputError) as error:
        check_site(target, find_workload(target.settings, "azure-set"))
    assert error.value.problems == [
        f"{path}: site:azure: subscriptionId is not set; gpufleet scale needs it"
    ]

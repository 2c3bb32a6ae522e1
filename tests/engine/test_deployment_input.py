"""Stack exports as input (``gpufleet check`` / ``cost --from-export``, a cost diff's base): a
broken or hostile export is one line naming the file and field, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpufleet.engine.analyzer_resources import DeploymentError, from_deployment, load_deployment
from gpufleet.engine.wire import SECRET_SIG, SIG_KEY

STACK = "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev"
GPU = "urn:pulumi:dev::proj::aws:ec2/instance:Instance::gpu"


def export(*resources: dict[str, Any]) -> dict[str, Any]:
    return {
        "version": 3,
        "deployment": {"resources": [{"urn": STACK, "type": "pulumi:pulumi:Stack"}, *resources]},
    }


def instance(**extra: Any) -> dict[str, Any]:
    return {
        "urn": GPU,
        "type": "aws:ec2/instance:Instance",
        "custom": True,
        "inputs": {"instanceType": "p5.48xlarge"},
        **extra,
    }


def test_a_resource_listed_twice_is_refused() -> None:
    with pytest.raises(DeploymentError, match=r"resources\[2\]\.urn: .*gpu appears more than once"):
        from_deployment(export(instance(), instance()), "e.json")


def test_the_old_half_of_a_replacement_is_not_counted() -> None:
    old = instance(delete=True, inputs={"instanceType": "p4d.24xlarge"})
    resources = from_deployment(export(old, instance()), "e.json")
    gpu = [r for r in resources if r.urn == GPU]
    assert len(gpu) == 1 and gpu[0].inputs["instanceType"] == "p5.48xlarge"


@pytest.mark.parametrize(
    ("resource", "message"),
    [
        (instance(inputs=[1]), r"resources\[1\]\.inputs: expected an object, not list"),
        (instance(dependencies=[1]), r"resources\[1\]\.dependencies: not a list of URNs"),
        (
            instance(
                outputs={
                    "x": {
                        SIG_KEY: SECRET_SIG,
                        "plaintext": "{",
                    }
                }
            ),
            r"resources\[1\]\.outputs: a secret's plaintext is not JSON text",
        ),
        ({"type": "x"}, r"resources\[1\]\.urn: missing or not a string"),
    ],
)
def test_a_bad_field_is_named(resource: dict[str, Any], message: str) -> None:
    with pytest.raises(DeploymentError, match=message):
        from_deployment(export(resource), "e.json")


def test_a_secret_nested_too_deeply_is_one_line(tmp_path: Path) -> None:
    deep = "[" * 900 + "]" * 900
    secret = {
        SIG_KEY: SECRET_SIG,
        "plaintext": deep,
    }
    path = tmp_path / "e.json"
    nested: Any = secret
    for _ in range(80):
        nested = {"x": nested}
    path.write_text(json.dumps(export(instance(outputs={"x": nested}))), encoding="utf-8")
    with pytest.raises(DeploymentError, match=r"resources\[1\]\.outputs: nested too deeply"):
        load_deployment(path)


def test_a_file_that_is_not_an_export_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "e.json"
    path.write_text('{"version": 3, "deployment": {"resources": [NaN]}}', encoding="utf-8")
    with pytest.raises(DeploymentError, match="not valid JSON: NaN is not a finite number"):
        load_deployment(path)

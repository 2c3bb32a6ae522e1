"""Every component's docstring example runs as written (under mocks), so the docs cannot drift
from the code."""

from __future__ import annotations

import importlib
import textwrap
from types import SimpleNamespace

import pulumi
import pytest

from gpufleet.planner.capabilities import CAPABILITIES
from tests.components.component_checks import TAGS
from tests.components.pulumi_mocks import capture


def example_of(module_name: str) -> str:
    doc = importlib.import_module(module_name).__doc__ or ""
    assert "Example::" in doc, f"{module_name} has no usage example"
    return textwrap.dedent(doc.split("Example::", 1)[1]).strip()


def resource(id_: str) -> SimpleNamespace:
    return SimpleNamespace(id=id_)


@pytest.mark.parametrize("module_name", [capability.module for capability in CAPABILITIES.values()])
def test_docstring_example_runs(module_name: str) -> None:
    code = example_of(module_name)
    namespace = {
        "pulumi": pulumi,
        "tags": TAGS,
        "vpc": resource("vpc-0123456789abcdef0"),
        "subnet_a": resource("subnet-0aaaaaaaaaaaaaaaa"),
        "subnet_b": resource("subnet-0bbbbbbbbbbbbbbbb"),
        "private_subnet_a": resource("subnet-0aaaaaaaaaaaaaaaa"),
        "egress_sg": resource("sg-0123456789abcdef0"),
        "pool": SimpleNamespace(
            capacity_reservation_id="cr-0123456789abcdef0",
            reservation_name="chat-serving-reservation",
        ),
        "network": resource("projects/acme-ml/global/networks/ml"),
        "subnetwork": resource("projects/acme-ml/regions/us-east4/subnetworks/ml-private"),
        "resource_group": SimpleNamespace(name="rg-ml-prod"),
        "subnet": resource(
            "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-ml-prod"
            "/providers/Microsoft.Network/virtualNetworks/ml/subnets/gpu"
        ),
    }
    cap, _ = capture(lambda: exec(code, namespace))
    components = [r for r in cap.registrations if r.type.startswith("gpufleet:")]
    assert components, f"{module_name}: the example registered no component"
    assert all(r.parent or not r.custom for r in cap.registrations)

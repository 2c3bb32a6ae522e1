"""The ``imdsv2-required`` rule through the servicer the pack serves: resources that must pass and
resources that must fail, as users write them."""

from __future__ import annotations

from gpufleet.policies.testing import PolicyHarness
from tests.policies.inputs import LT, TAGS, policies_of


def test_imdsv2(dev: PolicyHarness) -> None:
    assert policies_of(dev.analyze(LT, {"tags": TAGS})) == [("imdsv2-required", "mandatory")]
    assert dev.analyze(LT, {"tags": TAGS, "metadataOptions": {"httpEndpoint": "disabled"}}) == []
    instance = {"tags": TAGS, "launchTemplate": {"id": "lt-1"}}
    assert dev.analyze("aws:ec2/instance:Instance", instance) == []  # the template decides

"""The ``aml-scale-to-zero`` rule through the servicer the pack serves: resources that must pass
and resources that must fail, as users write them."""

from __future__ import annotations

from gpufleet.policies.testing import PolicyHarness
from tests.policies.inputs import aml_cluster, policies_of


def test_aml_scale_to_zero(dev: PolicyHarness) -> None:
    aml = "azure-native:machinelearningservices:Compute"
    assert dev.analyze(aml, aml_cluster(scaleSettings={"minNodeCount": 0, "maxNodeCount": 2})) == []
    found = dev.analyze(aml, aml_cluster(scaleSettings={"minNodeCount": 1, "maxNodeCount": 2}))
    assert policies_of(found) == [("aml-scale-to-zero", "mandatory")]

"""gpufleet's test suite, laid out like the package: the tests of ``policies/rules/gpu_budget.py``
are ``tests/policies/rules/test_gpu_budget.py``. A module without a test file of its own is
tested through the one that uses it (``components/aws/efa.py`` through the PlacementCluster
tests, ``stacks/config_writer.py`` through ``gpufleet generate``'s). Shared inputs live in
small helper modules beside the tests (``helpers.py``, ``policies/inputs.py``, ...); fixtures
in ``conftest.py``. Offline: no network, cloud credentials or Pulumi CLI.
"""

"""gpufleet test suite (a package so tests can share helpers from conftest)."""

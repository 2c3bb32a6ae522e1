"""Tests of checks/: gpufleet check's protocol, config, reports."""

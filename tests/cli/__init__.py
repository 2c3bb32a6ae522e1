"""Tests of cli/: the gpufleet command and its renderers."""

"""Tests of stacks/: the program, the component registry and gpufleet generate."""

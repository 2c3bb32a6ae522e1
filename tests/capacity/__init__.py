"""Tests of capacity/: GPU footprints, a stack's capacity, the cost engine, cost reports and
diffs, and `gpufleet cost` end to end."""

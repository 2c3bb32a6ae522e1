"""Tests of planner/: spec, catalog, GPU vocabulary, VRAM estimator, pricing, optimizer."""

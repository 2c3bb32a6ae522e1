"""Tests of capacity/footprints/: GPU footprints per cloud."""

"""Tests of policies/footprints/: GPU footprints per cloud."""

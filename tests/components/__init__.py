"""Tests of components/, and the checks every component test makes on a capture."""

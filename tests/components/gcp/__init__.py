"""Tests of components/gcp/."""

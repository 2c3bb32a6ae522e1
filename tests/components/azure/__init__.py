"""Tests of components/azure/."""

"""Tests of components/aws/."""

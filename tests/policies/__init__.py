"""Tests of policies/: the policy pack and what its rules build on."""

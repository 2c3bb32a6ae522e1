"""Tests of policies/serving/: the servicer and the server."""

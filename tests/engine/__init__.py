"""Tests of engine/: the offline engine."""

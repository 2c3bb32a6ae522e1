"""Tests of scripts/: the helpers CI and maintainers run, run as they run them."""

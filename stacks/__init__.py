"""The Pulumi program (``main: stacks/`` in Pulumi.yaml) and per-environment stack configs.

Filled in by issue 5; importable now so the layout is complete.
"""

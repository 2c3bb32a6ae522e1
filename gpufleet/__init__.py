"""gpufleet: cost-optimal, policy-checked GPU capacity on AWS, GCP and Azure with Pulumi.

The import package maps the repository's top-level folders (see pyproject.toml):
``gpufleet.planner`` (spec, catalog, VRAM estimator, optimizer; never imports pulumi),
``gpufleet.cli`` (the ``gpufleet`` command), ``gpufleet.components`` (Pulumi components),
``gpufleet.policies`` (CrossGuard rules) and ``gpufleet.stacks`` (the Pulumi program).
"""

__version__ = "0.1.0"

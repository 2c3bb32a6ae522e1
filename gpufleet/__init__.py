"""gpufleet: cost-optimal, policy-checked GPU capacity on AWS, GCP and Azure with Pulumi.

The package's parts are the repository's top-level folders, linked here (``gpufleet/planner ->
../planner``, ...): ``gpufleet.planner`` (spec, catalog, VRAM estimator, optimizer; never
imports pulumi), ``gpufleet.cli`` (the ``gpufleet`` command), ``gpufleet.components`` (Pulumi
components), ``gpufleet.stacks`` (the Pulumi program and ``gpufleet generate``),
``gpufleet.engine`` (the offline engine), ``gpufleet.policies`` (the CrossGuard pack) and
``gpufleet.checks`` (``gpufleet check``). Beside them live the vocabularies every part shares,
each the one home of its facts: ``clouds``, ``pricing_models`` (and hours per month),
``tag_keys``; and ``atomic_write``.
"""

__version__ = "0.1.0"

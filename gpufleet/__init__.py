"""gpufleet: cost-optimal, policy-checked GPU capacity on AWS, GCP and Azure with Pulumi.

The package's parts are the repository's top-level folders, linked here (``gpufleet/planner ->
../planner``, ...): ``gpufleet.planner`` (spec, catalog, VRAM estimator, optimizer; never
imports pulumi), ``gpufleet.cli`` (the ``gpufleet`` command), ``gpufleet.components`` (Pulumi
components), ``gpufleet.stacks`` (the Pulumi program and ``gpufleet generate``),
``gpufleet.engine`` (the offline engine), ``gpufleet.policies`` (the CrossGuard pack) and
``gpufleet.checks`` (``gpufleet check``). Beside them live the vocabularies every part shares,
each the one home of its facts: ``clouds``, ``workload_kinds``, ``pricing_models`` (and hours
per month),
``tag_keys``, ``policy_tags`` (what a policy is about: security or cost); and small helpers
every command shares: ``atomic_write`` (files written all or none), ``process_signals``
(SIGTERM unwinds), the readers of users' files within limits (``text_input``, ``yaml_input``,
``json_input``), ``terminal_text`` (control characters escaped) and ``github_text`` (untrusted
text in GitHub markdown and workflow commands).
"""

__version__ = "0.1.0"
# The project's home: SARIF's informationUri; each policy's help is a row of its README.
PROJECT_URL = "https://github.com/gpufleet/gpufleet"

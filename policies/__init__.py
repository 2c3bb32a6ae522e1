"""gpufleet's CrossGuard policy pack (``policies/``, runnable as ``pulumi preview --policy-pack
policies``).

``pack`` names the pack and builds its servicer; ``rules/`` holds one module per policy,
collected automatically; ``serving/`` is what serves them to the engine (the Analyzer servicer
and a one-loop gRPC server). What rules build on: ``policy_builders`` turns plain rule
functions into SDK policies (unknown-safe reads, config defaults, suppressions);
``shared_reads`` gives the rules of one request the GPU footprints, capacity and cost that
``gpufleet.capacity`` reads from the resources, read once; ``stack_limits`` reads the
environment's limits from a generated stack's config; ``properties`` and ``same_input_memo``
keep evaluation exact and fast. ``pack_build`` writes the pack self-contained, to publish
(``gpufleet pack``). ``testing`` runs
policies against resource dicts through the pack's servicer, for unit tests. ``config/`` holds
each environment's policy config (only what differs from the defaults). Importing this package
starts nothing.
"""

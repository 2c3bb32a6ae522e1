"""gpufleet's CrossGuard policy pack (``policies/``, runnable as ``pulumi preview --policy-pack
policies``).

``pack`` names the pack and builds its servicer; ``rules/`` holds one module per policy,
collected automatically; ``serving/`` is what serves them to the engine (the Analyzer servicer
and a one-loop gRPC server). What rules build on: ``policy_builders`` turns plain rule
functions into SDK policies (unknown-safe reads, config defaults, suppressions);
``footprints/`` reads the GPU capacity a resource describes (one module per cloud, registered
by resource type) and ``stack_capacity`` that of a whole stack; ``taggable`` knows which types
take tags (table generated from the SDKs); ``stack_limits`` reads the environment's limits from
a generated stack's config; ``resource_types`` names the type tokens the rules read;
``properties`` and ``same_input_memo`` keep evaluation exact and fast. ``testing`` runs
policies against resource dicts through the pack's servicer, for unit tests. ``config/`` holds
each environment's policy config (only what differs from the defaults). Importing this package
starts nothing.
"""

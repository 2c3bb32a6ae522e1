"""gpufleet's CrossGuard policy pack (``policies/``, runnable as ``pulumi preview --policy-pack
policies``): ``pack`` lists the policies and serves them with ``analyzer_servicer`` (the SDK's
servicer, reading each request once) on ``unary_server`` (a one-loop gRPC server); the rules
live in ``required_tags``, ``gpu_limits``, ``gpu_budget``, ``cost_hygiene`` and ``security``;
``policy_builders`` turns plain rule
functions into SDK policies (unknown-safe reads, config defaults, suppressions);
``gpu_footprint`` / ``stack_capacity`` read GPU capacity from resources; ``taggable`` knows which
types take tags (table generated from the SDKs); ``same_input_memo`` shares per-request work
between policies; ``testing`` runs policies against resource dicts through the pack's servicer,
for unit tests. Importing this package starts nothing.
"""

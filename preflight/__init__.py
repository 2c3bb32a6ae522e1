"""``gpufleet preflight``: before ``pulumi up``, whether the account's quotas let it run what a
stack's plan asks for — EC2 vCPU quotas per instance class (Service Quotas), GCP regional GPU
quotas (Compute regions), Azure vCPU quotas per VM family and for Spot (Compute usage).

``needs`` sums what the stack config's parts run at their most, per quota a machine counts
against (``planner.quotas``); a reader per cloud (``aws_quotas``, ``gcp_quotas``,
``azure_quotas``) reads the limits, and ``preflight_run`` compares them. Its JSON is what
``gpufleet plan --respect-quotas`` plans within.
"""

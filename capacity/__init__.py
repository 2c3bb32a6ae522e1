"""What GPU capacity a stack's resources hold, and what it costs.

Read from any stack — a capture of gpufleet's own, any Pulumi program's, a ``pulumi stack
export`` — with no cloud access: ``stack_resource`` is one resource as the engine sees it;
``property_values`` reads its properties, unknowns kept; ``taggable`` knows which types take
tags (a table generated from the provider SDKs); ``footprints/`` reads the GPU capacity each
resource describes (one module per cloud, registered by resource type); ``stack_capacity``
resolves groups to their templates; ``cost_engine`` prices it all, per resource and workload
(the one cost model behind ``gpufleet cost`` and the budget policy); ``cost_report`` is its
JSON shape and ``cost_diff`` compares two of them; ``stack_cost`` is ``gpufleet cost`` end to
end, short of rendering. Nothing here imports pulumi or pydantic: the policy pack reads it too.
"""

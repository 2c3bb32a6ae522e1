"""Entry point Pulumi runs for this policy pack (``pulumi preview --policy-pack policies``)."""

from gpufleet.policies.pack import serve

serve()

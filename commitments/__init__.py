"""``gpufleet commitments``: the commitments an account holds, read through the clouds' SDKs,
and which of a stack's reservations they pay for.

``aws_commitments`` reads EC2 reserved instances and Savings Plans (boto3),
``gcp_commitments`` committed-use discounts (google-cloud-compute's RegionCommitmentsClient),
``azure_commitments`` Azure reservations (azure-mgmt-reservations); each gives
``capacity.commitments.HeldCommitment`` records, and ``account_commitments`` is the command
short of rendering: the stack's reserved parts (its stack config), the commitments of the
clouds and regions they are in, and ``capacity.commitments.cover`` over both — the rule the
cost engine prices with. Clients, credentials and error wording are ``runs``' (``*_access``).
Only the cloud modules import an SDK, and only when the command runs.
"""

"""AWS components, one module per component; the parts they share live in their own modules
beside them: launch template, security groups, instance role, EFA interface layout, AMI lookup,
the checkpoint bucket and the SageMaker execution role.
"""

"""AWS components, one module per component; the parts they share live in their own modules
beside them: launch template, security groups, instance role, EFA interface layout, AMI lookup,
the checkpoint bucket, the SageMaker execution role, and how an Auto Scaling group follows its
scaling (``group_scaling``).
"""

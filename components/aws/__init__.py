"""AWS components: SpotFleet, PlacementCluster, CapacityPool, SageMakerSpotTraining.

One module per component; the launch template, security groups, instance role, EFA interface
layout and AMI lookup they share live in their own modules beside them.
"""

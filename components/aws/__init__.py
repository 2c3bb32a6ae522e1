"""AWS components: SpotFleet, PlacementCluster, CapacityPool, SageMakerSpotTraining (issue 3)."""

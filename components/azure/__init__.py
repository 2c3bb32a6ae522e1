"""Azure components: LowPriorityCluster, SpotScaleSet, CapacityReservationGroup (issue 4)."""

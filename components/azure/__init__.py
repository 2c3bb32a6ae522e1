"""Azure components: LowPriorityCluster, SpotScaleSet, CapacityReservationGroup.

One module per component; derived resource names and the Azure GPU size checks they share live
in their own modules beside them.
"""

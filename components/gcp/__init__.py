"""GCP components: SpotGroup, CompactCluster, ReservationPool (issue 4)."""

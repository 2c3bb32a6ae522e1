"""GCP components: SpotGroup, CompactCluster, ReservationPool.

One module per component; GPU/machine pairing rules and the instance settings they share
(boot disk, network interface without external IP, shielded VM, service account) live in
their own modules beside them.
"""

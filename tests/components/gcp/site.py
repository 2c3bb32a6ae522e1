"""The image, network and disk key the GCP component tests place VMs in."""

IMAGE = "projects/deeplearning-platform-release/global/images/family/common-cu124-debian-11"
NET = {"network": "projects/acme-ml-prod/global/networks/ml", "subnetwork": "ml-us-central1"}
KMS_KEY = "projects/acme-kms/locations/us-central1/keyRings/ml/cryptoKeys/disks"

"""The image and network the GCP component tests place VMs in."""

IMAGE = "projects/deeplearning-platform-release/global/images/family/common-cu124-debian-11"
NET = {"network": "projects/acme-ml-prod/global/networks/ml", "subnetwork": "ml-us-central1"}

"""The SSH key and subnet the Azure component tests place VMs in."""

SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGpufleettestkey ops@acme"
SUBNET_ID = (
    "/subscriptions/0/resourceGroups/rg-ml/providers/Microsoft.Network/"
    "virtualNetworks/ml/subnets/gpu"
)

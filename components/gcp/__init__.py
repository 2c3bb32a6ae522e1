"""GCP components, one module per component; the instance settings they share (boot disk,
network interface without external IP, shielded VM, service account) live in
``instance_settings``, and which GPUs a machine type carries in ``planner/gcp_machines.py``.
"""

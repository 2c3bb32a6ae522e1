"""Instance settings every gpufleet GCP component uses, as input dicts that fit both
``compute.Instance`` and ``compute.InstanceTemplate``.

Secure defaults: no external IP (no access config), shielded VM with vTPM and integrity
monitoring, OS Login with project-wide SSH keys blocked, a dedicated service account with
minimal scopes (logs, metrics, and read/write to Cloud Storage for datasets and checkpoints;
what it may actually touch is granted by IAM roles on that account). Secure Boot is off by
default because the NVIDIA driver most GPU images install at first boot is unsigned and would
not load; turn it on with ``secure_boot=True`` for images with signed drivers. GPU VMs cannot
live-migrate, so host maintenance terminates them.

Disk encryption: Compute Engine encrypts every disk at rest, by default with Google-managed keys
— the documented exception to Checkov CKV_GCP_38, which asks an instance's boot disk for a
customer-managed (or customer-supplied) key; gpufleet holds its instance templates' disks to the
same bar, though Checkov does not read them, and creates no standalone disks (CKV_GCP_37).
gpufleet creates no key by default: Cloud KMS key rings and keys cannot be deleted, so a stack
that made them would leave them behind at every destroy, and a key destroyed with a stack leaves
any disk kept past it (Spot VMs stopped, not deleted) unreadable. ``disk_kms_key`` (a Cloud KMS key,
``projects/<p>/locations/<region>/keyRings/<r>/cryptoKeys/<k>``, in the VMs' region) encrypts the
boot disks with your key instead; the Compute Engine service agent
(``service-<project number>@compute-system.iam.gserviceaccount.com``) needs
``roles/cloudkms.cryptoKeyEncrypterDecrypter`` on it, which the key's owner grants.
"""

from __future__ import annotations

import hashlib
import re
from typing import Annotated, Any

import pulumi
import pulumi_gcp as gcp
from pydantic import AfterValidator

from gpufleet.planner.gcp_machines import MachineGpus

# What these helpers return: plain input dicts. The SDK types the same dict under a different
# TypedDict name for an instance and for a template (InstanceSchedulingArgsDict,
# InstanceTemplateSchedulingArgsDict, ...), so one helper serving both is typed Any.
InstanceInput = Any

DEFAULT_SCOPES = (
    "https://www.googleapis.com/auth/logging.write",
    "https://www.googleapis.com/auth/monitoring.write",
    "https://www.googleapis.com/auth/devstorage.read_write",
)
METADATA = {"enable-oslogin": "TRUE", "block-project-ssh-keys": "TRUE"}
GCP_ZONE = re.compile(r"[a-z]+-[a-z]+\d+-[a-z]")
KMS_KEY = re.compile(r"projects/[^/]+/locations/[^/]+/keyRings/[^/]+/cryptoKeys/[^/]+")


def _zone(value: str) -> str:
    if not GCP_ZONE.fullmatch(value):
        raise ValueError(f"{value!r} is not a GCP zone such as us-east4-a")
    return value


GcpZone = Annotated[str, AfterValidator(_zone)]


def _kms_key(value: Any) -> Any:
    if isinstance(value, pulumi.Output):
        return value
    if not isinstance(value, str) or not KMS_KEY.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a Cloud KMS key "
            "(projects/<p>/locations/<l>/keyRings/<r>/cryptoKeys/<k>)"
        )
    return value


# A Cloud KMS key's resource name, or a pulumi Output of one (a key created in the same program).
KmsKey = Annotated[Any, AfterValidator(_kms_key)]


def service_account(
    name: str, *, parent: pulumi.Resource, project: str | None
) -> gcp.serviceaccount.Account:
    return gcp.serviceaccount.Account(
        f"{name}-sa",
        account_id=service_account_id(name),
        display_name=f"gpufleet {name}",
        project=project,
        opts=pulumi.ResourceOptions(parent=parent),
    )


def service_account_id(name: str) -> str:
    """A valid account id (6-30 characters, [a-z][-a-z0-9]*[a-z0-9]) derived from ``name``."""
    base = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")
    if not base[:1].isalpha():
        base = f"gf-{base}"
    candidate = f"{base}-sa"
    if 6 <= len(candidate) <= 30:
        return candidate
    digest = hashlib.sha256(name.encode()).hexdigest()[:6]
    return f"{base[:21].rstrip('-')}-{digest}-sa"


def scheduling(
    *, spot: bool, termination_action: str, max_run_seconds: int | None
) -> InstanceInput:
    settings: dict[str, Any] = {
        "on_host_maintenance": "TERMINATE",
        "automatic_restart": not spot,
        "provisioning_model": "SPOT" if spot else "STANDARD",
        "preemptible": spot,
    }
    if spot:
        settings["instance_termination_action"] = termination_action
    if max_run_seconds is not None:
        settings["max_run_duration"] = {"seconds": max_run_seconds}
        settings.setdefault("instance_termination_action", termination_action)
    return settings


def network_interface(network: Any, subnetwork: Any) -> InstanceInput:
    # No access_configs: the VM gets no external IP.
    return {"network": network, "subnetwork": subnetwork}


def shielded(secure_boot: bool) -> InstanceInput:
    return {
        "enable_secure_boot": secure_boot,
        "enable_vtpm": True,
        "enable_integrity_monitoring": True,
    }


def accelerators(gpus: MachineGpus) -> InstanceInput:
    if not gpus.attached:
        return None
    return [{"type": gpus.accelerator_type, "count": gpus.count}]


def account(email: Any, scopes: tuple[str, ...] | list[str]) -> InstanceInput:
    return {"email": email, "scopes": list(scopes)}


def reservation_affinity(reservation: Any) -> InstanceInput:
    return {
        "type": "SPECIFIC_RESERVATION",
        "specific_reservation": {
            "key": "compute.googleapis.com/reservation-name",
            "values": [reservation],
        },
    }


def template_boot_disk(
    *, image: str, size_gib: int, disk_type: str, labels: dict[str, str], kms_key: Any
) -> InstanceInput:
    """An instance template's boot disk, deleted with its VM, encrypted with ``kms_key`` (a
    Cloud KMS key) or, given None, Google-managed keys."""
    disk: dict[str, Any] = {
        "boot": True,
        "auto_delete": True,
        "source_image": image,
        "disk_size_gb": size_gib,
        "disk_type": disk_type,
        "labels": labels,
    }
    if kms_key is not None:
        disk["disk_encryption_key"] = {"kms_key_self_link": kms_key}
    return disk


def instance_boot_disk(
    *, image: str, size_gib: int, disk_type: str, labels: dict[str, str], kms_key: Any
) -> InstanceInput:
    """An instance's boot disk, deleted with it, encrypted with ``kms_key`` (CKV_GCP_38 reads
    ``kms_key_self_link``) or, given None, Google-managed keys."""
    disk: dict[str, Any] = {
        "auto_delete": True,
        "initialize_params": {
            "image": image,
            "size": size_gib,
            "type": disk_type,
            "labels": labels,
        },
    }
    if kms_key is not None:
        disk["kms_key_self_link"] = kms_key
    return disk

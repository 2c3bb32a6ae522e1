"""What a GCP run guard calls, and where it waits: shared by the stack, which builds the guard
(``run_guard``), and ``gpufleet scale``, which schedules it (``runs/gcp_groups.py``). Imports
nothing heavy.
"""

from __future__ import annotations

COMPUTE_HOST = "compute.googleapis.com"
# The guard's token: Cloud Tasks mints it for the guard's account with this scope.
CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"


def queue_name(group_name: str) -> str:
    """The guard queue of the group named ``group_name`` (Cloud Tasks names: letters, digits
    and hyphens, at most 100; a group's name is at most 63)."""
    return f"{group_name}-guard"


def group_path(group_link: str) -> str:
    """A group's resource name (``projects/.../instanceGroupManagers/NAME``) from its self link
    in any form."""
    path = group_link.split("?", 1)[0]
    at = path.find("projects/")
    return path[at:] if at >= 0 else path


def resize_path(group_link: str) -> str:
    """The API path that resizes the group (``?size=`` says to what)."""
    return f"/compute/v1/{group_path(group_link)}/resize"


def resize_url(group_link: str, size: int) -> str:
    return f"https://{COMPUTE_HOST}{resize_path(group_link)}?size={size}"

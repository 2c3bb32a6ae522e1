"""Names Azure requires up front, derived deterministically from the component name.

Azure caps and restricts names per resource type — storage accounts 3-24 lowercase letters and
digits, globally unique; key vaults 3-24 letters, digits and hyphens, globally unique; Azure ML
computes 2-16 characters. Pulumi's random suffixes would change every preview, so gpufleet
derives names from the component name plus a short hash of it: stable, valid, and unlikely to
collide across projects.
"""

from __future__ import annotations

import hashlib
import re


def _digest(name: str, length: int) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:length]


def storage_account_name(name: str) -> str:
    base = re.sub(r"[^a-z0-9]", "", name.lower())[:16] or "gf"
    return f"{base}{_digest(name, 8)}"


def key_vault_name(name: str) -> str:
    base = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")[:14].strip("-")
    if not base[:1].isalpha():
        base = f"kv{base}"[:14]
    return f"{base}-{_digest(name, 8)}"


def compute_name(name: str) -> str:
    """Azure ML compute: 2-16 characters, letters, digits and '-', starting with a letter."""
    base = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")
    if not base[:1].isalpha():
        base = f"c{base}"
    if 2 <= len(base) <= 16:
        return base
    return f"{base[:11].rstrip('-')}-{_digest(name, 4)}"


def computer_name_prefix(name: str) -> str:
    """VM scale set computer name prefix: letters, digits and '-', at most 9 characters."""
    base = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")
    return base[:9].rstrip("-") or "gpufleet"

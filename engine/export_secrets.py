"""The secrets provider an export names, so ``pulumi stack import`` can read its secrets.

An export writes secrets in the ``plaintext`` form (nothing offline holds the stack's key).
Pulumi imports that form only with a ``secrets_providers`` in the deployment: without one,
``stack import`` deserializes the plaintext and then, saving the state, has no crypter to
encrypt it with (pkg/resource/stack/deployment.go, ``SerializeDeployment`` falls back to
``config.NewPanicCrypter``). With the passphrase provider, the CLI asks for the passphrase
(``PULUMI_CONFIG_PASSPHRASE`` or ``_FILE``), checks it against the provider's state and
encrypts each secret as it saves the state.

The passphrase provider's shape, from Pulumi's Go sources (pkg/secrets/passphrase/manager.go,
sdk/go/common/resource/config/crypt.go)::

    "secrets_providers": {"type": "passphrase", "state": {"salt": "v1:<salt>:v1:<nonce>:<ct>"}}

``state.salt`` is the string a stack file keeps as ``encryptionsalt``: eight random bytes of
salt (base64), then the word ``pulumi`` encrypted with the key — PBKDF2-HMAC-SHA256 of the
passphrase and salt, 1,000,000 iterations, 32 bytes — by AES-256-GCM with a 12-byte nonce,
written ``v1:<nonce base64>:<ciphertext and tag base64>``. The CLI decrypts it to check a
passphrase. Which state an export names: the stack file's own ``encryptionsalt`` when it has
one (the stack's passphrase then imports it), else one made from ``PULUMI_CONFIG_PASSPHRASE``
(or the file ``PULUMI_CONFIG_PASSPHRASE_FILE`` names) when set; else there is none, and an
export holding secrets is refused unless written for analysis only.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

PASSPHRASE_ENV = "PULUMI_CONFIG_PASSPHRASE"
PASSPHRASE_FILE_ENV = "PULUMI_CONFIG_PASSPHRASE_FILE"
PASSPHRASE_PROVIDER = "passphrase"
KDF_ITERATIONS = 1_000_000
_KEY_BYTES = 32
_SALT_BYTES = 8
_NONCE_BYTES = 12
# What a passphrase provider's state encrypts, so that the CLI can tell a wrong passphrase.
_KNOWN_PLAINTEXT = b"pulumi"


class ExportSecretsError(Exception):
    """No secrets provider can be named for an export that holds secrets; one line."""


def passphrase_provider(salt_state: str) -> dict[str, Any]:
    return {"type": PASSPHRASE_PROVIDER, "state": {"salt": salt_state}}


def export_secrets_provider(
    stack_file: Path | None, environ: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The ``secrets_providers`` for an export of the stack whose config is ``stack_file``;
    ExportSecretsError when neither its ``encryptionsalt`` nor a passphrase is there."""
    salt = stack_encryption_salt(stack_file) if stack_file is not None else None
    if salt is not None:
        return passphrase_provider(salt)
    passphrase = _passphrase(os.environ if environ is None else environ)
    if passphrase is not None:
        return passphrase_provider(new_salt_state(passphrase))
    raise ExportSecretsError(
        "the export holds secrets, which `pulumi stack import` reads only with a secrets "
        f"provider: set {PASSPHRASE_ENV} (or {PASSPHRASE_FILE_ENV}) to the stack's passphrase, "
        "or give the stack file an encryptionsalt (pulumi stack init --secrets-provider "
        "passphrase); or add --analysis-only for an export only gpufleet check and pulumi "
        "policy analyze read"
    )


def stack_encryption_salt(stack_file: Path) -> str | None:
    """The stack file's ``encryptionsalt``, when it has one."""
    from gpufleet.text_input import InputFileError
    from gpufleet.yaml_input import read_yaml_file

    try:
        data = read_yaml_file(stack_file, what="a stack config").data
    except InputFileError:
        return None  # the program's run read it already; a missing file has no salt
    salt = data.get("encryptionsalt") if isinstance(data, dict) else None
    return salt if isinstance(salt, str) and salt.startswith("v1:") else None


def new_salt_state(passphrase: str) -> str:
    """A passphrase provider's state for ``passphrase``, as ``pulumi stack init`` makes one."""
    salt = os.urandom(_SALT_BYTES)
    return f"v1:{_b64(salt)}:{encrypt(_key(passphrase, salt), _KNOWN_PLAINTEXT)}"


def passphrase_matches(passphrase: str, salt_state: str) -> bool:
    """Whether ``salt_state`` was made with ``passphrase`` (the CLI's check)."""
    version, salt, rest = salt_state.split(":", 2)
    if version != "v1":
        return False
    try:
        return decrypt(_key(passphrase, base64.b64decode(salt)), rest) == _KNOWN_PLAINTEXT
    except ValueError:
        return False


def encrypt(key: bytes, plaintext: bytes) -> str:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    nonce = os.urandom(_NONCE_BYTES)
    return f"v1:{_b64(nonce)}:{_b64(AESGCM(key).encrypt(nonce, plaintext, None))}"


def decrypt(key: bytes, ciphertext: str) -> bytes:
    """ValueError when ``ciphertext`` is not one ``key`` made."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    parts = ciphertext.split(":")
    if len(parts) != 3 or parts[0] != "v1":
        raise ValueError("not a v1 ciphertext")
    nonce = base64.b64decode(parts[1])
    if len(nonce) != _NONCE_BYTES:
        raise ValueError("not a 12-byte nonce")
    try:
        return AESGCM(key).decrypt(nonce, base64.b64decode(parts[2]), None)
    except InvalidTag:
        raise ValueError("wrong key") from None


def _key(passphrase: str, salt: bytes) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", passphrase.encode(), salt, KDF_ITERATIONS, _KEY_BYTES)


def _passphrase(environ: Mapping[str, str]) -> str | None:
    if environ.get(PASSPHRASE_ENV):
        return environ[PASSPHRASE_ENV]
    path = environ.get(PASSPHRASE_FILE_ENV)
    if path:
        from gpufleet.text_input import InputFileError, read_text_file

        try:
            # As the CLI reads it (manager.go, readPassphrase): white space trimmed.
            return read_text_file(Path(path), what="a passphrase file", limit=65_536).strip()
        except InputFileError as exc:
            raise ExportSecretsError(f"{PASSPHRASE_FILE_ENV}: {exc}") from None
    return None


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")

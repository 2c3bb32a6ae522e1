"""Property values as they cross the engine's wire.

The language SDK serializes inputs into a protobuf ``Struct`` in which numbers are floats,
unknown values (computed, during a preview) are a sentinel string, and secrets, resource
references and output values are objects tagged with a signature key. ``decode_struct`` turns
that Struct into plain JSON-able Python keeping those encodings, which is the form the engine
(and a policy pack, and a stack export) sees; the SDK's own deserializer would resolve them into
Python objects and lose the difference between "unknown" and "absent".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf import json_format, struct_pb2

UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
SIG_KEY = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
RESOURCE_REF_SIG = "5cf8f73096256a8f31e491e813e4eb8e"
OUTPUT_VALUE_SIG = "d0e6a833031e9bbcd3f4e8bde6ca49a4"
# What a secret reads as where nothing here can decrypt it (a ``secure:`` config value, a
# ``ciphertext`` in a stack export): known to the engine, but not to us.
SECRET_PLACEHOLDER = "[secret: not decrypted offline]"
# What text an invoke returns offline, where no provider answers it (``invoke_fields``).
INVOKE_PLACEHOLDER = "[from an invoke: not known offline]"
# What a value unknown outside a preview reads as: nothing deploys it unknown, so it is one
# the offline engine could not answer (a stack reference's output with no file given, typed
# secret config). Known to a real preview, never offline: not a preview's unknown, which
# deploying settles, but a value the gate cannot read.
OFFLINE_UNKNOWN = "[not known offline: a stack reference's output or typed secret config]"
# The type in the URN an undecrypted secret's unknown Output depends on (``secret_config``):
# nothing registers it; what depends on it is not known offline, even in a preview.
UNDECRYPTED_SECRET_TYPE = "gpufleet:offline:UndecryptedSecret"
# Values the readers cannot read offline, whatever a real preview would know.
UNREADABLE_OFFLINE = (SECRET_PLACEHOLDER, INVOKE_PLACEHOLDER, OFFLINE_UNKNOWN)


def decode_struct(struct: struct_pb2.Struct) -> dict[str, Any]:
    return json_format.MessageToDict(struct)


def decode_value(value: struct_pb2.Value) -> Any:
    return json_format.MessageToDict(value)


def is_unknown(value: Any) -> bool:
    """True for a value the engine cannot know yet (anywhere in a preview)."""
    if value == UNKNOWN:
        return True
    if isinstance(value, dict) and value.get(SIG_KEY) == OUTPUT_VALUE_SIG:
        return "value" not in value
    return False


def contains_unknown(value: Any) -> bool:
    if is_unknown(value):
        return True
    if isinstance(value, dict):
        return any(contains_unknown(v) for v in value.values())
    if isinstance(value, list):
        return any(contains_unknown(v) for v in value)
    return False


def contains_secret(value: Any) -> bool:
    """True for a secret, or a list or object with one inside (at any depth)."""
    if isinstance(value, dict):
        if value.get(SIG_KEY) == SECRET_SIG:
            return True
        return any(contains_secret(v) for v in value.values())
    if isinstance(value, list):
        return any(contains_secret(v) for v in value)
    return False


SECRET_SHOWN = "[secret]"


def secret(value: Any) -> dict[str, Any]:
    """``value`` wrapped as the engine marks a secret."""
    return {SIG_KEY: SECRET_SIG, "value": value}


def keeping_secrets(value: Any) -> Any:
    """``value`` as ``plain`` makes it, except that secrets stay marked (``secret``): for
    values gpufleet keeps, shows (``redacted``) and exports."""
    return _unwrapped(value, secret)


def redacted(value: Any) -> Any:
    """``value`` for a screen or a report: every secret as ``[secret]``, never its text."""
    return _unwrapped(value, lambda _: SECRET_SHOWN)


def plain(value: Any) -> Any:
    """``value`` with secrets and output values unwrapped and resource references as their
    URN; unknowns stay the sentinel. For reading captured inputs, not for re-sending them."""
    return _unwrapped(value, lambda inner: inner)


def _unwrapped(value: Any, on_secret: Callable[[Any], Any]) -> Any:
    """``value`` with output values unwrapped and resource references as their URN; what a
    secret becomes is ``on_secret`` of its (unwrapped) value."""
    if isinstance(value, list):
        return [_unwrapped(v, on_secret) for v in value]
    if not isinstance(value, dict):
        return value
    sig = value.get(SIG_KEY)
    if sig in (SECRET_SIG, OUTPUT_VALUE_SIG):
        inner = _unwrapped(value.get("value", UNKNOWN), on_secret)
        is_secret = sig == SECRET_SIG or value.get("secret") is True
        return on_secret(inner) if is_secret else inner
    if sig == RESOURCE_REF_SIG:
        return value.get("urn")
    return {k: _unwrapped(v, on_secret) for k, v in value.items()}

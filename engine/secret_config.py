"""How a program reads a ``secure:`` config value under the offline engine (in the program's
process, ``program_child``).

Nothing offline can decrypt it (no secrets provider), so the parent hands the program the text
``SECRET_PLACEHOLDER`` for it, marked secret. Text reads as that placeholder: a string getter
(``require``, ``get_secret``) gives it, as documented. A typed value cannot be made up:

- the secret typed getters (``require_secret_int``, ``get_secret_bool``, ``..._float``,
  ``..._object``) give an unknown secret Output, as a value not known until deployment is in
  a preview: applies on it do not run, and a resource given it has that input unknown — not
  known offline, in a preview too (a real preview decrypts it), which the engine learns from
  the input's dependency on the secret (``UNDECRYPTED_SECRET_TYPE``);
- the plain typed getters (``require_int``, ``get_bool``, ...) must return a value now, and
  there is none to return: they raise ``SecretConfigOfflineError``, one line naming the key
  and what would let the program run (its value in plain text through ``--config``, or the
  secret getter).

A ``secure:`` value inside an object (``pulumi config set --secret --path``) is the
placeholder at its place; the object is still an object, so every getter reads it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pulumi
from pulumi.resource import DependencyResource
from pulumi.runtime.config import get_config, is_config_secret

from gpufleet.engine.wire import SECRET_PLACEHOLDER, UNDECRYPTED_SECRET_TYPE

_KINDS = ("bool", "int", "float", "object")


class SecretConfigOfflineError(pulumi.RunError):
    """A typed config getter asked for the value of a secret nothing offline can decrypt."""


def _undecrypted(config: pulumi.Config, key: str) -> str | None:
    """The full key, when ``key`` is a ``secure:`` value gpufleet could not decrypt."""
    full_key = config.full_key(key)
    if get_config(full_key) == SECRET_PLACEHOLDER and is_config_secret(full_key):
        return full_key
    return None


async def _resolved(value: Any) -> Any:
    return value


def unknown_secret(full_key: str) -> pulumi.Output[Any]:
    """An Output whose value is not known, and secret. What is given it depends on a resource
    of ``UNDECRYPTED_SECRET_TYPE`` (never registered): the engine reads such a property as
    not known offline, even in a preview, where a real preview decrypts the value."""
    marker = DependencyResource(
        f"urn:pulumi:{pulumi.get_stack()}::{pulumi.get_project()}::"
        f"{UNDECRYPTED_SECRET_TYPE}::{full_key}"
    )
    return pulumi.Output({marker}, _resolved(None), _resolved(False), _resolved(True))


def _unknown_when_undecrypted(getter: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(getter)
    def read(self: pulumi.Config, key: str, *args: Any, **kwargs: Any) -> Any:
        full_key = _undecrypted(self, key)
        if full_key is not None:
            return unknown_secret(full_key)
        return getter(self, key, *args, **kwargs)

    return read


def _refused_when_undecrypted(getter: Callable[..., Any], kind: str) -> Callable[..., Any]:
    secret_getter = getter.__name__.replace("_", "_secret_", 1)

    @functools.wraps(getter)
    def read(self: pulumi.Config, key: str, *args: Any, **kwargs: Any) -> Any:
        full_key = _undecrypted(self, key)
        if full_key is not None:
            raise SecretConfigOfflineError(
                f"config {full_key} is a secret (secure:) that cannot be decrypted offline, "
                f"and {getter.__name__} needs its {kind} value: give the value in plain text "
                f"in a stack config passed with --config, or read it with {secret_getter} "
                "(unknown offline)"
            )
        return getter(self, key, *args, **kwargs)

    return read


def install() -> None:
    """Have ``pulumi.Config``'s typed getters read undecrypted secrets as described above."""
    config_class: Any = pulumi.Config
    for kind in _KINDS:
        for prefix in ("get_secret_", "require_secret_"):
            name = prefix + kind
            setattr(config_class, name, _unknown_when_undecrypted(getattr(config_class, name)))
        for prefix in ("get_", "require_"):
            name = prefix + kind
            setattr(
                config_class, name, _refused_when_undecrypted(getattr(config_class, name), kind)
            )

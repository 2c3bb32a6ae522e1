"""Run a Pulumi Python program directory offline, with a stack's config, and capture it.

Reads ``Pulumi.yaml`` (project name, ``main``, ``stackConfigDir``) and the stack's
``Pulumi.<stack>.yaml`` the way the CLI does, flattens the config into the engine's
``namespace:key`` map (keys without a namespace belong to the project; objects and lists become
JSON, as ``pulumi config set --path`` stores them), then runs ``main`` as ``__main__`` from its
own directory, in a process of its own against the offline engine (``program_process``).

Offline limits, stated: ``secure:`` values cannot be decrypted without the stack's secrets
provider, so a program reading one as text gets the placeholder ``SECRET_PLACEHOLDER`` (marked
secret; typed reads: ``secret_config``), one inside an object too (the key is then secret);
ESC environments (``environment:``) are not resolved. Other stacks' outputs
(``StackReference``) come from files the user names (``stack_references``), else are unknown.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pulumi

from gpufleet.engine.capture import Capture
from gpufleet.engine.program_process import ProgramEnding, ProgramRun, run_program_process
from gpufleet.engine.run_limits import DEFAULT_TIMEOUT_SECONDS
from gpufleet.engine.stack_references import StackReferenceError, read_stack_references
from gpufleet.engine.wire import SECRET_PLACEHOLDER
from gpufleet.text_input import InputFileError
from gpufleet.yaml_input import read_yaml_file


class ProgramError(Exception):
    """The program directory or its config cannot be used (a user mistake: exit 2)."""


class ProgramRunError(Exception):
    """The program did not run to its end (exit 1): it raised (the error, the resource being
    built, where), or it ended otherwise (``error_type`` empty: the message says how).

    Keeps the error as text: it comes from the program's own process (``program_process``).
    """

    def __init__(
        self, error_type: str, message: str, resource: str | None, location: str | None
    ) -> None:
        self.error_type = error_type
        self.message = message
        self.resource = resource
        self.location = location
        super().__init__(self.describe())

    @classmethod
    def of(cls, ending: ProgramEnding) -> ProgramRunError:
        """How a program that did not run to its end ended, as an error."""
        raised = ending.raised
        if raised is not None:
            return cls(raised.error_type, raised.message, raised.resource, raised.location)
        return cls("", ending.summary, None, None)

    def describe(self) -> str:
        if not self.error_type:
            return f"program {self.message}"
        where = f" at {self.location}" if self.location else ""
        building = f" while building {self.resource}" if self.resource else ""
        return f"program failed{building}{where}: {self.error_type}: {self.message}"


@dataclass(frozen=True)
class PulumiProject:
    root: Path
    name: str
    main: Path
    stack_config_dir: Path

    def stack_config_file(self, stack: str) -> Path:
        return self.stack_config_dir / f"Pulumi.{stack}.yaml"

    def has_stack_config(self, stack: str) -> bool:
        """Whether anything is at the stack's config path (a dangling link too): it is read as
        the stack's config, or refused as one (a directory, a device); only a path with nothing
        there is a stack without config."""
        return _present(self.stack_config_file(stack))

    def configured_stacks(self) -> list[str]:
        """Stacks with a ``Pulumi.<stack>.yaml`` in the stack config directory."""
        prefix, suffix = "Pulumi.", ".yaml"
        return sorted(
            path.name[len(prefix) : -len(suffix)]
            for path in self.stack_config_dir.glob(f"{prefix}*{suffix}")
            if path.is_file()
        )


def _present(path: Path) -> bool:
    """Anything at ``path``, a dangling link too: what a reader reads, or refuses by name."""
    return path.exists() or path.is_symlink()


def load_project(directory: Path) -> PulumiProject:
    for file_name in ("Pulumi.yaml", "Pulumi.yml"):
        path = directory / file_name
        if _present(path):  # read, or refused as what it is (a FIFO)
            break
    else:
        raise ProgramError(f"{directory}: no Pulumi.yaml (not a Pulumi project directory)")
    try:
        data = read_yaml_file(path, what="a Pulumi project file").data or {}
    except InputFileError as exc:
        raise ProgramError(str(exc)) from None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise ProgramError(f"{path}:1: name: needs a project name (name: ...)")
    runtime = data.get("runtime")
    runtime_name = runtime.get("name") if isinstance(runtime, dict) else runtime
    if runtime_name != "python":
        raise ProgramError(f"{path}: runtime is {runtime_name!r}; only python programs run here")
    # As given, not resolved: errors name stack files the way the user wrote the directory.
    config_dir = directory / str(data.get("stackConfigDir") or ".")
    directory = directory.resolve()
    main = directory / str(data.get("main") or ".")
    if not (main / "__main__.py").is_file() and not (main.is_file() and main.suffix == ".py"):
        raise ProgramError(f"{path}: main {main} has no __main__.py")
    return PulumiProject(directory, data["name"], main, config_dir)


def load_stack_config(project: str, path: Path) -> tuple[dict[str, str], list[str]]:
    """The engine's flat config map and secret keys from a ``Pulumi.<stack>.yaml``."""
    try:
        document = read_yaml_file(path, what="a stack config")
    except InputFileError as exc:
        raise ProgramError(str(exc)) from None
    data = document.data or {}
    if not isinstance(data, dict):
        raise ProgramError(f"{path}:1: config: expected a mapping with a config: key")
    config = data.get("config") or {}
    if not isinstance(config, dict):
        line = document.line_of(("config",))
        raise ProgramError(f"{path}:{line}: config: must be a mapping of key: value")
    flat: dict[str, str] = {}
    secret_keys: list[str] = []
    for key, value in config.items():
        full_key = str(key) if ":" in str(key) else f"{project}:{key}"
        if _is_secure(value):
            flat[full_key] = SECRET_PLACEHOLDER
            secret_keys.append(full_key)
        elif isinstance(value, str):
            flat[full_key] = value
        else:
            # A secure: value inside an object or list (`pulumi config set --secret --path`)
            # is the placeholder at its place; the whole key is secret, as the CLI makes it.
            if _holds_secure(value):
                secret_keys.append(full_key)
            flat[full_key] = json.dumps(_placeholders(value), default=str)
    return flat, secret_keys


def _is_secure(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"secure"}


def _holds_secure(value: Any) -> bool:
    if _is_secure(value):
        return True
    if isinstance(value, dict):
        return any(_holds_secure(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_secure(v) for v in value)
    return False


def _placeholders(value: Any) -> Any:
    """``value`` with each ``secure:`` value in it replaced by ``SECRET_PLACEHOLDER``."""
    if _is_secure(value):
        return SECRET_PLACEHOLDER
    if isinstance(value, dict):
        return {k: _placeholders(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_placeholders(v) for v in value]
    return value


@dataclass(frozen=True)
class ProgramSetup:
    """What a program runs with: its project, and its stack's config (file, map, secret keys)."""

    project: PulumiProject
    config_file: Path  # the stack config file (it may not exist: a stack without config)
    config: dict[str, str]
    secret_keys: list[str]


def program_setup(directory: Path, stack: str, config_file: Path | None = None) -> ProgramSetup:
    """The project in ``directory`` and its stack's config; ProgramError if they cannot be
    used."""
    project = load_project(directory)
    config_path = config_file or project.stack_config_file(stack)
    if config_file is not None or project.has_stack_config(stack):
        config, secret_keys = load_stack_config(project.name, config_path)
    elif known := project.configured_stacks():
        # Pulumi allows a stack without a config file, but offline there is no backend to say
        # the stack exists, and next to other stacks' files a missing one is nearly always a
        # typo (--env prdo) that would otherwise surface as a confusing program failure.
        raise ProgramError(
            f"{config_path}: no such stack config (stacks here: {', '.join(known)}); "
            "create it (empty is fine) or pass --config FILE"
        )
    else:
        config, secret_keys = {}, []
    return ProgramSetup(project, config_path, config, secret_keys)


def run_program(
    directory: Path,
    stack: str,
    *,
    config_file: Path | None = None,
    preview: bool = False,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    setup: ProgramSetup | None = None,
    stack_references: Sequence[tuple[str, Path]] = (),
    before_start: Callable[[], object] | None = None,
) -> ProgramRun:
    """Run the project's program in a process of its own (``program_process``): what it
    registered, and how it ended. ``setup``: the project and config when already read.
    ``stack_references``: (stack name, file of its outputs) for the stacks it reads.
    ``before_start``: done before the program's code runs (``run_program_process``)."""
    setup = setup or program_setup(directory, stack, config_file)
    try:
        # Read before the program starts: it could rewrite them.
        references = read_stack_references(stack_references)
    except StackReferenceError as exc:
        raise ProgramError(str(exc)) from None
    main = setup.project.main
    run_dir = (main if main.is_dir() else main.parent).resolve()
    return run_program_process(
        main.resolve(),
        run_dir,
        project=setup.project.name,
        stack=stack,
        preview=preview,
        config=setup.config,
        secret_keys=setup.secret_keys,
        timeout=timeout,
        stack_references=references,
        before_start=before_start,
    )


def run_program_dir(
    directory: Path,
    stack: str,
    *,
    config_file: Path | None = None,
    preview: bool = False,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
) -> Capture:
    """The program's capture; ProgramRunError unless it ran to its end."""
    run = run_program(directory, stack, config_file=config_file, preview=preview, timeout=timeout)
    if not run.ending.finished:
        raise ProgramRunError.of(run.ending)
    return run.capture


def blame(error: BaseException, program_dir: Path) -> tuple[str | None, str | None]:
    """(the resource under construction when ``error`` was raised, the program line)."""
    resource = None
    location = None
    for frame, line in traceback.walk_tb(error.__traceback__):
        code = frame.f_code
        if Path(code.co_filename).resolve().is_relative_to(program_dir):
            location = f"{Path(code.co_filename).name}:{line}"
        this: Any = frame.f_locals.get("self")
        constructing = code.co_name == "__init__" and isinstance(this, pulumi.Resource)
        if constructing and resource is None and code.co_argcount > 1:
            name = frame.f_locals.get(code.co_varnames[1])
            token = getattr(this, "_type", None) or type(this).__name__
            resource = f"{token} {name!r}"
    return resource, location

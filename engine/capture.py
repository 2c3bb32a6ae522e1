"""Run Pulumi code under the SDK's mock runtime and capture every registration as the engine
would receive it.

``capture_program(fn)`` runs ``fn`` (anything that creates resources) with ``CaptureMonitor``, a
``MockMonitor`` that records each ``RegisterResource`` request whole — URN, type, name, parent,
provider reference, dependencies (and per property), protect / retainOnDelete / ignoreChanges /
deleteBeforeReplace / replaceOnChanges, the source position, and the inputs as the wire Struct
decoded (``engine.wire``) — and answers with realistic outputs (``engine.mock_outputs``).

Two things the stock mock monitor gets wrong, and this one gets right:

- transforms run: the resource's own ``transforms`` option, then those of each ancestor, then
  stack transforms (``register_resource_transform``), each called through the SDK's callback
  server over gRPC exactly as the engine calls it, before the resource is recorded;
- URNs omit the root stack from the parent type chain, as the engine's do.

With ``preview=True`` nothing computed is returned, so ids, ARNs and anything derived from them
are unknown, as in ``pulumi preview``.

Secrets flow as the engine lets them: outputs are computed from the inputs' plain values (a
secret bucket name still names the bucket), an output whose input of the same name was secret
is secret, ids are plain. A ``StackReference`` (a read of another stack) answers the outputs of
the file the user named for that stack (``stack_references``), else unknown outputs: unknown,
as its values are to gpufleet, in a preview and out of one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import grpc
import pulumi
from google.protobuf import struct_pb2
from pulumi.runtime import mocks
from pulumi.runtime.proto import callback_pb2, callback_pb2_grpc, resource_pb2
from pulumi.runtime.settings import ROOT, SETTINGS, _get_rpc_manager
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

from gpufleet.engine.mock_outputs import invoke_result, realistic_outputs
from gpufleet.engine.wire import (
    OFFLINE_UNKNOWN,
    SECRET_SIG,
    SIG_KEY,
    UNDECRYPTED_SECRET_TYPE,
    UNKNOWN,
    contains_secret,
    contains_unknown,
    decode_struct,
    decode_value,
    plain,
    secret,
)

STACK_TYPE = "pulumi:pulumi:Stack"
STACK_REFERENCE_TYPE = "pulumi:pulumi:StackReference"


@dataclass
class Registration:
    type: str
    name: str
    urn: str
    parent: str
    custom: bool
    provider: str
    dependencies: list[str]
    property_dependencies: dict[str, list[str]]
    protect: bool
    retain_on_delete: bool
    ignore_changes: list[str]
    delete_before_replace: bool
    replace_on_changes: list[str]
    additional_secret_outputs: list[str]
    source: tuple[str, int] | None
    inputs: dict[str, Any]
    id: str = ""
    outputs: dict[str, Any] = field(default_factory=dict)
    deleted_with: str = ""
    source_column: int = 0
    # The program's call stack at registration: (file, line, column) per frame.
    stack_trace: list[tuple[str, int, int]] = field(default_factory=list)
    # As the program gave them: Go duration strings ("30m") per operation.
    custom_timeouts: dict[str, str] = field(default_factory=dict)
    import_id: str = ""
    replace_with: list[str] = field(default_factory=list)
    hide_diffs: list[str] = field(default_factory=list)
    # A value whose change replaces the resource (wire form), when given.
    replacement_trigger: Any = None
    # The names of the hooks bound to it, by hook type as the engine names them ("BeforeCreate").
    resource_hooks: dict[str, list[str]] = field(default_factory=dict)
    # A component a provider builds (a multi-language component): it has a provider, and what
    # it creates is not in the program.
    remote: bool = False
    # Its properties that depend on secret config nothing offline decrypts (``secret_config``):
    # not known offline, even in a preview. The dependency itself is dropped (nothing has that
    # URN).
    undecrypted_properties: tuple[str, ...] = ()

    @property
    def is_provider(self) -> bool:
        return self.type.startswith("pulumi:providers:")

    @property
    def has_provider(self) -> bool:
        """Whether the engine gives it a provider: custom resources and remote components."""
        return (self.custom or self.remote) and not self.is_provider


@dataclass
class Capture:
    project: str
    stack: str
    preview: bool
    stack_urn: str
    registrations: list[Registration]
    invokes: list[tuple[str, dict[str, Any]]]
    exports: dict[str, Any] = field(default_factory=dict)
    # The engine's flat config map the program ran with ("aws:region" -> "us-west-2").
    config: dict[str, str] = field(default_factory=dict)

    def of_type(self, type_: str) -> list[Registration]:
        # Sorted by name: registrations resolve their inputs concurrently, so arrival order
        # varies from run to run.
        return sorted((r for r in self.registrations if r.type == type_), key=lambda r: r.name)

    def one(self, type_: str) -> Registration:
        found = self.of_type(type_)
        if len(found) != 1:
            raise LookupError(f"{len(found)} resources of type {type_}")
        return found[0]

    def named(self, name: str) -> Registration:
        found = [r for r in self.registrations if r.name == name]
        if len(found) != 1:
            raise LookupError(f"{len(found)} resources named {name}")
        return found[0]

    @property
    def types(self) -> list[str]:
        return sorted(r.type for r in self.registrations)

    def ordered(self) -> list[Registration]:
        """Registrations in a stable order in which every resource comes after its parent,
        provider and dependencies (as a deployment's resource list must be)."""
        by_urn = {r.urn: r for r in self.registrations}
        done: set[str] = set()
        out: list[Registration] = []

        def needs(r: Registration) -> Iterable[str]:
            yield r.parent
            yield r.provider.rsplit("::", 1)[0] if r.provider else ""
            yield from r.dependencies

        def visit(r: Registration, path: frozenset[str]) -> None:
            if r.urn in done or r.urn in path:
                return
            for urn in sorted(set(needs(r))):
                if urn in by_urn:
                    visit(by_urn[urn], path | {r.urn})
            done.add(r.urn)
            out.append(r)

        for r in sorted(self.registrations, key=lambda r: r.urn):
            visit(r, frozenset())
        return out


def offline_where_referenced(r: Registration, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with what is unknown in a property that depends on a stack reference or on
    undecrypted secret config made ``OFFLINE_UNKNOWN``: a real preview knows another stack's
    outputs and decrypts secrets; offline, without the file of those outputs
    (``--stack-reference``) or the secrets provider, nothing does, and that is no preview's
    unknown."""
    referring = {
        key
        for key, urns in r.property_dependencies.items()
        if any(urn.split("::")[2:3] == [STACK_REFERENCE_TYPE] for urn in urns)
    }
    referring.update(r.undecrypted_properties)
    if not referring:
        return values
    return {key: _offline(value) if key in referring else value for key, value in values.items()}


def _offline(value: Any) -> Any:
    if value == UNKNOWN:
        return OFFLINE_UNKNOWN
    if isinstance(value, list):
        return [_offline(v) for v in value]
    if isinstance(value, dict):
        return {k: _offline(v) for k, v in value.items()}
    return value


class RealisticMocks(pulumi.runtime.Mocks):
    def __init__(
        self, preview: bool, stack_references: dict[str, dict[str, Any]] | None = None
    ) -> None:
        self.preview = preview
        self.invokes: list[tuple[str, dict[str, Any]]] = []
        # provider reference ("urn::id") -> the provider's inputs (region, project)
        self.providers: dict[str, dict[str, Any]] = {}
        # A referenced stack's name, as the program gives it -> what its StackReference reads
        # ("outputs", in engine form, and "secretOutputNames"): ``stack_references``.
        self.stack_references = dict(stack_references or {})

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        inputs = dict(args.inputs)
        if self.preview:
            # A preview knows inputs only; ids and computed outputs stay unknown.
            return "", inputs
        provider = self.providers.get(args.provider or "")
        rid, outputs = realistic_outputs(
            args.typ,
            args.name,
            {key: plain(value) for key, value in inputs.items()},
            plain(provider) if provider is not None else None,
        )
        # As the engine marks a provider's outputs: secret where the input of that name was.
        secret_keys = {key for key, value in inputs.items() if contains_secret(value)}
        return str(rid), {
            key: secret(value) if key in secret_keys and key != "id" else value
            for key, value in outputs.items()
        }

    def call(
        self, args: pulumi.runtime.MockCallArgs
    ) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        self.invokes.append((args.token, dict(args.args)))
        return invoke_result(args.token, dict(args.args)), []


class CaptureLimitError(Exception):
    """A program registered more than a capture keeps (``CaptureMonitor`` limits)."""


class CaptureMonitor(mocks.MockMonitor):
    def __init__(
        self,
        the_mocks: RealisticMocks,
        *,
        max_registrations: int | None = None,
        max_request_bytes: int | None = None,
    ) -> None:
        super().__init__(the_mocks)
        self.realistic = the_mocks
        self.registrations: list[Registration] = []
        self.by_urn: dict[str, Registration] = {}
        self.stack_urn = ""
        # What an untrusted program may make this process hold (None: no limit); past it,
        # registrations are refused and ``overflow`` says why.
        self._max_registrations = max_registrations
        self._max_request_bytes = max_request_bytes
        self._request_bytes = 0
        self._claimed: set[str] = set()
        self.overflow: str | None = None
        # The stack's outputs (``pulumi.export``), as registered on the stack resource: how a
        # program in another process hands its exports over.
        self.exports: dict[str, Any] = {}
        self._own_transforms: dict[str, list[callback_pb2.Callback]] = {}
        self._stack_callbacks: list[callback_pb2.Callback] = []
        self._channels: dict[str, grpc.Channel] = {}
        # The SDK calls the monitor from executor threads.
        self._lock = threading.Lock()

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        if parent and parent != self.stack_urn:
            parent_type = parent.split("::")[2]
            type_ = f"{parent_type}${type_}"
        return "urn:pulumi:" + "::".join([pulumi.get_stack(), pulumi.get_project(), type_, name])

    def RegisterStackTransform(self, request: Any) -> Any:  # noqa: N802 - gRPC method name
        self._stack_callbacks.append(request)
        return super().RegisterStackTransform(request)

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802 - gRPC method name
        if request.type == STACK_TYPE:
            self.stack_urn = "urn:pulumi:" + "::".join(
                [pulumi.get_stack(), pulumi.get_project(), STACK_TYPE, request.name]
            )
            return resource_pb2.RegisterResourceResponse(urn=self.stack_urn)
        urn = self.make_urn(request.parent, request.type, request.name)
        with self._lock:
            self._admit(urn, request.ByteSize())
            self._own_transforms[urn] = list(request.transforms)
        request = self._transformed(urn, request)
        response = super().RegisterResource(request)
        if not self.realistic.preview:
            _keep_unknown_inputs(request.object, response.object)
        _mark_secret_outputs(response.object, request.additionalSecretOutputs)
        registration = _registration(request, response)
        if registration.is_provider:
            ref = f"{response.urn}::{response.id or UNKNOWN}"
            self.realistic.providers[ref] = registration.inputs
        with self._lock:
            self.registrations.append(registration)
            self.by_urn[registration.urn] = registration
        return response

    def _admit(self, urn: str, size: int) -> None:
        """Claim ``urn`` for one registration, within the limits (the lock held)."""
        if urn in self._claimed:
            # The engine refuses a second resource of the same URN; keeping either would let
            # one hide behind the other.
            raise ValueError(f"Duplicate resource URN '{urn}'; try giving it a unique name")
        self._request_bytes += size
        count = len(self._claimed) + 1
        if self._max_registrations is not None and count > self._max_registrations:
            self.overflow = f"registered more than {self._max_registrations:,} resources"
        elif self._max_request_bytes is not None and self._request_bytes > self._max_request_bytes:
            self.overflow = (
                f"registered more than {self._max_request_bytes // 2**20:,} MiB of resource inputs"
            )
        if self.overflow is not None:
            raise CaptureLimitError(f"{self.overflow}; gpufleet keeps no more")
        self._claimed.add(urn)

    def Invoke(self, request: Any) -> Any:  # noqa: N802 - gRPC method name
        response = super().Invoke(request)
        return response

    def ReadResource(self, request: Any) -> Any:  # noqa: N802 - gRPC method name
        if request.type != STACK_REFERENCE_TYPE:
            return super().ReadResource(request)
        # The engine reads another stack's outputs from the backend; offline, from the file
        # named for it. Without one they are left out and the read said unknown: the SDK then
        # resolves them unknown, in a preview (absent) and out of one (``unknown``).
        name = request.id
        state: dict[str, Any] = {"name": name}
        referenced = self.realistic.stack_references.get(name)
        if referenced is not None:
            state |= referenced
        properties = struct_pb2.Struct()
        properties.update(state)
        urn = self.make_urn(request.parent, request.type, request.name)
        return resource_pb2.ReadResourceResponse(
            urn=urn, id=name, properties=properties, unknown=referenced is None
        )

    def RegisterResourceOutputs(self, request: Any) -> Any:  # noqa: N802 - gRPC method name
        with self._lock:
            registration = self.by_urn.get(request.urn)
            if registration is not None:
                registration.outputs = decode_struct(request.outputs)
            elif request.urn and request.urn == self.stack_urn:
                self.exports = dict(sorted(decode_struct(request.outputs).items()))
        return super().RegisterResourceOutputs(request)

    def _transformed(self, urn: str, request: Any) -> Any:
        callbacks = list(request.transforms)
        parent = request.parent
        with self._lock:
            while parent and parent != self.stack_urn:
                callbacks += self._own_transforms.get(parent, [])
                parent = self.by_urn[parent].parent if parent in self.by_urn else ""
            callbacks += self._stack_callbacks
        for callback in callbacks:
            request = self._run_transform(callback, request)
        return request

    def _run_transform(self, callback: callback_pb2.Callback, request: Any) -> Any:
        transform_request = resource_pb2.TransformRequest(
            type=request.type,
            name=request.name,
            custom=request.custom,
            parent=request.parent,
            properties=request.object,
            options=_transform_options(request),
        )
        channel = self._channels.get(callback.target)
        if channel is None:
            channel = self._channels[callback.target] = grpc.insecure_channel(callback.target)
        stub = callback_pb2_grpc.CallbacksStub(channel)
        reply = stub.Invoke(
            callback_pb2.CallbackInvokeRequest(
                token=callback.token, request=transform_request.SerializeToString()
            )
        )
        result = resource_pb2.TransformResponse.FromString(reply.response)
        changed = resource_pb2.RegisterResourceRequest()
        changed.CopyFrom(request)
        changed.object.CopyFrom(result.properties)
        if result.HasField("options"):
            _apply_options(changed, result.options)
        return changed

    def close(self) -> None:
        for channel in self._channels.values():
            channel.close()

    def capture(
        self,
        *,
        project: str,
        stack: str,
        preview: bool,
        config: dict[str, str],
        exports: dict[str, Any],
    ) -> Capture:
        """What the program registered, as a ``Capture``."""
        return Capture(
            project=project,
            stack=stack,
            preview=preview,
            stack_urn=self.stack_urn,
            registrations=list(self.registrations),
            invokes=self.realistic.invokes,
            exports=exports,
            config=dict(config),
        )


def _keep_unknown_inputs(inputs: struct_pb2.Struct, outputs: struct_pb2.Struct) -> None:
    """An output whose input of that name holds an unknown (another stack's output, a typed
    secret not decrypted) is that input, unknown where it was, as the engine would leave it:
    out of a preview the mocks see an unknown as None, and would leave it out or echo it as a
    known None."""
    for key, value in inputs.fields.items():
        if contains_unknown(decode_value(value)):
            outputs.fields[key].CopyFrom(value)


def _mark_secret_outputs(outputs: struct_pb2.Struct, keys: Iterable[str]) -> None:
    """The outputs ``additional_secret_outputs`` names, made secrets, as the engine does: the
    program then sees them as secrets, and so do its exports that use them."""
    for key in dict.fromkeys(keys):
        if key not in outputs.fields or _is_secret(outputs.fields[key]):
            continue  # a secret already (named twice, or secret as given): wrapped once
        wrapper = struct_pb2.Struct()
        wrapper.fields[SIG_KEY].string_value = SECRET_SIG
        wrapper.fields["value"].CopyFrom(outputs.fields[key])
        outputs.fields[key].struct_value.CopyFrom(wrapper)


def _is_secret(value: struct_pb2.Value) -> bool:
    if value.WhichOneof("kind") != "struct_value":
        return False
    sig = value.struct_value.fields.get(SIG_KEY)
    return sig is not None and sig.string_value == SECRET_SIG


def _transform_options(request: Any) -> resource_pb2.TransformResourceOptions:
    options = resource_pb2.TransformResourceOptions(
        depends_on=list(request.dependencies),
        ignore_changes=list(request.ignoreChanges),
        replace_on_changes=list(request.replaceOnChanges),
        version=request.version,
        provider=request.provider,
        plugin_download_url=request.pluginDownloadURL,
        deleted_with=request.deletedWith,
        additional_secret_outputs=list(request.additionalSecretOutputs),
        providers=dict(request.providers),
    )
    if request.HasField("protect"):
        options.protect = request.protect
    if request.HasField("retainOnDelete"):
        options.retain_on_delete = request.retainOnDelete
    if request.deleteBeforeReplaceDefined:
        options.delete_before_replace = request.deleteBeforeReplace
    if request.HasField("customTimeouts"):
        options.custom_timeouts.CopyFrom(request.customTimeouts)
    return options


def _apply_options(request: Any, options: resource_pb2.TransformResourceOptions) -> None:
    def replace(target: Any, values: Iterable[str]) -> None:
        del target[:]
        target.extend(values)

    replace(request.dependencies, options.depends_on)
    replace(request.ignoreChanges, options.ignore_changes)
    replace(request.replaceOnChanges, options.replace_on_changes)
    replace(request.additionalSecretOutputs, options.additional_secret_outputs)
    request.provider = options.provider
    request.version = options.version
    request.deletedWith = options.deleted_with
    if options.HasField("protect"):
        request.protect = options.protect
    if options.HasField("retain_on_delete"):
        request.retainOnDelete = options.retain_on_delete
    if options.HasField("delete_before_replace"):
        request.deleteBeforeReplace = options.delete_before_replace
        request.deleteBeforeReplaceDefined = True


def _is_undecrypted(urn: str) -> bool:
    return urn.split("::")[2:3] == [UNDECRYPTED_SECRET_TYPE]


def _registration(request: Any, response: Any) -> Registration:
    property_dependencies = {
        key: list(deps.urns) for key, deps in request.propertyDependencies.items()
    }
    undecrypted = tuple(
        key for key, urns in property_dependencies.items() if any(map(_is_undecrypted, urns))
    )
    source = None
    if request.HasField("sourcePosition") and request.sourcePosition.uri:
        source = (_file_of(request.sourcePosition.uri), request.sourcePosition.line)
    timeouts = request.customTimeouts
    return Registration(
        type=request.type,
        name=request.name,
        urn=response.urn,
        parent=request.parent,
        custom=request.custom,
        provider=request.provider,
        # The Python SDK gathers dependencies in a set, so their order varies from run to run
        # (hash seeds); sorted, a capture and the export written from it are reproducible.
        dependencies=sorted(urn for urn in request.dependencies if not _is_undecrypted(urn)),
        property_dependencies={
            key: sorted(urn for urn in urns if not _is_undecrypted(urn))
            for key, urns in sorted(property_dependencies.items())
        },
        protect=request.protect,
        retain_on_delete=request.retainOnDelete,
        ignore_changes=list(request.ignoreChanges),
        delete_before_replace=request.deleteBeforeReplace,
        replace_on_changes=list(request.replaceOnChanges),
        additional_secret_outputs=list(request.additionalSecretOutputs),
        source=source,
        inputs=decode_struct(request.object),
        id=response.id,
        outputs=decode_struct(response.object) if request.custom else {},
        deleted_with=request.deletedWith,
        source_column=request.sourcePosition.column if source else 0,
        stack_trace=[
            (_file_of(frame.pc.uri), frame.pc.line, frame.pc.column)
            for frame in request.stackTrace.frames
            if frame.HasField("pc") and frame.pc.uri
        ],
        custom_timeouts={
            operation: getattr(timeouts, operation)
            for operation in ("create", "update", "delete", "read")
            if getattr(timeouts, operation)
        },
        import_id=request.importId,
        replace_with=list(request.replace_with),
        hide_diffs=list(request.hideDiffs),
        replacement_trigger=decode_value(request.replacement_trigger)
        if request.HasField("replacement_trigger")
        else None,
        resource_hooks=_hooks(request),
        remote=request.remote,
        undecrypted_properties=undecrypted,
    )


# The engine's hook types are the binding's field names in Go's spelling (before_create is
# BeforeCreate), as it reads them from the binding by reflection.
_HOOK_TYPES = {
    f.name: "".join(part.capitalize() for part in f.name.split("_"))
    for f in resource_pb2.RegisterResourceRequest.ResourceHooksBinding.DESCRIPTOR.fields
}


def _hooks(request: Any) -> dict[str, list[str]]:
    if not request.HasField("hooks"):
        return {}
    bound = {kind: list(getattr(request.hooks, name)) for name, kind in _HOOK_TYPES.items()}
    return {kind: names for kind, names in bound.items() if names}


def _file_of(uri: str) -> str:
    """The path of a ``file://`` URL as the SDK sends it (escaped: a space is ``%20``)."""
    return unquote(uri.removeprefix("file://"))


@dataclass
class CaptureResult:
    capture: Capture
    value: Any


def capture_program(
    program: Callable[[], Any],
    *,
    project: str = "gpufleet",
    stack: str = "dev",
    preview: bool = False,
    config: dict[str, str] | None = None,
    secret_keys: list[str] | None = None,
) -> CaptureResult:
    """Run ``program`` under mocks; return what it registered, exported and returned.

    ``config`` is the engine's flat config map (``"namespace:key" -> string``, objects as JSON).
    Exceptions from the program propagate after the runtime has shut down cleanly.
    """
    the_mocks = RealisticMocks(preview)
    monitor = CaptureMonitor(the_mocks)
    ROOT.set(None)
    pulumi.runtime.set_all_config(dict(config or {}), secret_keys or [])
    pulumi.runtime.set_mocks(
        the_mocks, project=project, stack=stack, preview=preview, monitor=monitor
    )
    _get_rpc_manager().clear()
    # The SDK's contextproperty decorator hides this attribute's type from type checkers.
    SETTINGS.outputs.clear()  # pyright: ignore[reportAttributeAccessIssue]
    result: dict[str, Any] = {}

    def run() -> None:
        result["value"] = program()

    try:
        _sync_await(run_pulumi_func(run))
        root = ROOT.get()
        exports = {
            key: resolve_or_unknown(value)
            for key, value in sorted(getattr(root, "outputs", {}).items())
        }
    finally:
        monitor.close()
        # The runtime's config is process-wide: leave none behind for whatever runs next.
        pulumi.runtime.set_all_config({}, [])
    capture = monitor.capture(
        project=project, stack=stack, preview=preview, config=config or {}, exports=exports
    )
    return CaptureResult(capture, result.get("value"))


def resolve(value: Any) -> Any:
    """The plain value of an Output (or nested structure) created during a capture."""
    return _sync_await(pulumi.Output.from_input(value).future())


def resolve_or_unknown(value: Any) -> Any:
    """Like ``resolve``, but each unknown leaf (in a preview) becomes the unknown sentinel."""
    if isinstance(value, dict):
        return {k: resolve_or_unknown(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [resolve_or_unknown(v) for v in value]
    output = pulumi.Output.from_input(value)
    if not _sync_await(output.is_known()):
        return UNKNOWN
    return _sync_await(output.future())

"""YAML a user hands gpufleet (a spec, a stack config, a Pulumi.yaml), read into plain Python data
with the source line of every key and list item, within limits no file can get past.

libyaml's parser (C, iterative) produces events and the document is built from them here,
without recursion: PyYAML's own composer recurses in C and crashes the interpreter on a few
kilobytes of nested brackets. While building:

- nesting deeper than ``MAX_NESTING`` stops the read (no spec or config nests past a dozen);
- an alias inserts a copy of its anchor's value, and all aliases together may add at most
  ``MAX_ALIAS_NODES`` values: a "billion laughs" file of a few kilobytes stops here instead of
  growing to gigabytes; an alias to an anchor that encloses it (a cycle) is an error;
- only the core schema's tags are read (``!!str``, ``!!int``, ``!!float``, ``!!bool``,
  ``!!null``, ``!!map``, ``!!seq``, and ``!`` for a plain string); ``!!timestamp``, ``!!binary``,
  ``!!python/...`` and custom tags are refused, and a value that does not fit its tag
  (``!!int zz``) is an error, not a traceback;
- numbers must be finite (``.nan`` and ``.inf`` are refused: no price, size or budget can be
  one) and short enough to convert; a duplicate key is an error (PyYAML keeps the last one);
- at most ``MAX_YAML_VALUES`` values (keys, scalars, mappings, sequences, aliases) are built:
  time and memory go with values, not bytes (16 MiB of ``[1,1,...]`` is 8 million values,
  gigabytes and tens of seconds);
- one document only.

Every problem is a ``YamlInputError`` with the line and the field it was found at.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import yaml

from gpufleet.text_input import MAX_NESTING, InputFileError, quoted_key, read_text_file

try:
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as _Loader

Path_ = tuple[str | int, ...]

MAX_YAML_BYTES = 16 * 1024 * 1024
MAX_ALIAS_NODES = 100_000
# Specs and stack configs are small: the generated stack config of a 250-workload spec holds
# 9,453 values (the spec 4,015), a 2,000-workload spec some 24,000. Reading this many takes a
# second or two and well under 500 MB, whatever reads the document next (a spec of 50,000
# unknown keys: 2.5 s, 112 MB).
MAX_YAML_VALUES = 100_000

_TAG = "tag:yaml.org,2002:"
_SCALAR_TAGS = {f"{_TAG}{name}" for name in ("str", "int", "float", "bool", "null")}
_MAP_TAGS = {None, "!", f"{_TAG}map"}
_SEQ_TAGS = {None, "!", f"{_TAG}seq"}
_MAX_FIELD_CHARS = 80


class YamlInputError(InputFileError):
    """A problem in a YAML file, at a line and field when known."""


@dataclass(frozen=True)
class LocatedDocument:
    data: Any
    # Line (1-based) of each key's "key:" and of each list item, by path from the root.
    lines: dict[Path_, int]

    def line_of(self, path: Path_) -> int | None:
        """The line of ``path`` or of its nearest ancestor that exists in the document."""
        for end in range(len(path), -1, -1):
            line = self.lines.get(path[:end])
            if line is not None:
                return line
        return None


def read_yaml_file(path: Path, *, what: str) -> LocatedDocument:
    """``path`` read (``text_input`` limits) and parsed; ``what`` names it ("a stack config")."""
    text = read_text_file(path, what=what, limit=MAX_YAML_BYTES)
    return parse_yaml(text, str(path))


def parse_yaml(text: str, file: str, *, local_tags: bool = False) -> LocatedDocument:
    """``text`` as one YAML document; ``file`` names it in errors. ``local_tags``: an
    application's own tags (CloudFormation's ``!Ref``, ``!GetAtt``, ``!Sub``...) are read as
    the plain value they tag, for documents searched rather than loaded (the core schema's
    tags stay strict, and nothing is ever constructed from a tag)."""
    if len(text) > MAX_YAML_BYTES:
        raise YamlInputError(file, f"too large (the limit is {MAX_YAML_BYTES:,} bytes)")
    builder = _Builder(file, local_tags=local_tags)
    try:
        for event in yaml.parse(text, Loader=_Loader):
            builder.take(event)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        message = " ".join(part for part in (exc.context, exc.problem) if part) or str(exc)
        if "maximum nesting depth" in (exc.problem or ""):
            # libyaml >= 0.2.6 (PyYAML 6.0.4) stops at its own depth while scanning ahead on
            # a long line, before the builder sees the events: the same problem, one wording.
            message = f"nested more than {MAX_NESTING} levels deep"
            raise YamlInputError(file, message, line=line, field="yaml") from None
        raise YamlInputError(file, f"not valid YAML: {message}", line=line, field="yaml") from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (NUL, ...)
        line = text.count("\n", 0, exc.position) + 1
        message = f"not valid YAML: character #x{exc.character:04x} is not allowed"
        raise YamlInputError(file, message, line=line, field="yaml") from None
    except yaml.YAMLError as exc:
        raise YamlInputError(file, f"not valid YAML: {exc}", field="yaml") from None
    except MemoryError:
        raise YamlInputError(file, "too large to read: out of memory", field="yaml") from None
    return LocatedDocument(builder.result, builder.lines)


@dataclass
class _Open:
    """A mapping or sequence being built."""

    data: dict[Any, Any] | list[Any]
    path: Path_
    anchor: str | None
    line: int
    key: Any = None
    key_line: int = 0
    has_key: bool = False
    merge_next: bool = False
    first_line: dict[Any, int] = field(default_factory=dict)
    merged: list[dict[Any, Any]] = field(default_factory=list)


_NOTHING = object()


class _Builder:
    def __init__(self, file: str, *, local_tags: bool = False) -> None:
        self.file = file
        self.local_tags = local_tags
        self.lines: dict[Path_, int] = {}
        self.stack: list[_Open] = []
        self.anchors: dict[str, tuple[Any, int]] = {}  # value, how many values it holds
        self.open_anchors: set[str] = set()
        self.sizes: list[int] = []  # values built so far inside each open container
        self.alias_nodes = 0
        self.values = 0
        self.documents = 0
        self.result: Any = None
        self.resolver = yaml.resolver.Resolver()
        self.scalars = yaml.constructor.SafeConstructor()

    # -- events --------------------------------------------------------------------------

    def take(self, event: yaml.Event) -> None:
        if isinstance(event, yaml.NodeEvent):
            self.values += 1
            if self.values > MAX_YAML_VALUES:
                raise YamlInputError(
                    self.file,
                    f"more than {MAX_YAML_VALUES:,} values (the limit is {MAX_YAML_VALUES:,})",
                    line=event.start_mark.line + 1,
                    field="yaml",
                )
        if isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                self._fail(event, "one YAML document expected; found a second")
        elif isinstance(event, yaml.ScalarEvent):
            self._scalar(event)
        elif isinstance(event, yaml.AliasEvent):
            self._alias(event)
        elif isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            self._start(event)
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            self._end()

    def _start(self, event: yaml.MappingStartEvent | yaml.SequenceStartEvent) -> None:
        is_map = isinstance(event, yaml.MappingStartEvent)
        if self._expecting_key():
            self._fail(event, "mapping keys must be scalars")
        if len(self.stack) >= MAX_NESTING:
            self._fail(event, f"nested more than {MAX_NESTING} levels deep")
        if event.tag not in (_MAP_TAGS if is_map else _SEQ_TAGS) and not self._local(event.tag):
            self._fail(event, f"tag {event.tag.replace(_TAG, '!!')} is not supported here")
        path, line = self._place(event)
        if event.anchor is not None:
            self.open_anchors.add(event.anchor)
        self.lines[path] = line
        self.stack.append(_Open({} if is_map else [], path, event.anchor, line))
        self.sizes.append(1)

    def _end(self) -> None:
        frame = self.stack.pop()
        size = self.sizes.pop()
        if isinstance(frame.data, dict):
            # YAML merge keys ("<<: *defaults"): keys written here win over merged ones.
            for source in frame.merged:
                for key, value in source.items():
                    frame.data.setdefault(key, value)
        if frame.anchor is not None:
            self.open_anchors.discard(frame.anchor)
            self.anchors[frame.anchor] = (frame.data, size)
        self._add(frame.data, size, frame.line)

    def _scalar(self, event: yaml.ScalarEvent) -> None:
        line = event.start_mark.line + 1
        if self._expecting_key():
            frame = self.stack[-1]
            if event.value == "<<" and event.tag is None and event.implicit[0]:
                frame.merge_next = True
                frame.has_key = True
                return
            key = self._construct(event)
            if key in frame.first_line:
                first = frame.first_line[key]
                self._fail(event, f"duplicate key {key!r} (first at line {first})", key=key)
            frame.first_line[key] = line
            frame.key, frame.key_line, frame.has_key = key, line, True
            if event.anchor is not None:
                self.anchors[event.anchor] = (key, 1)
            return
        value = self._construct(event)
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, 1)
        path, value_line = self._place(event)
        self.lines[path] = value_line
        self._add(value, 1, value_line)

    def _alias(self, event: yaml.AliasEvent) -> None:
        name = event.anchor
        if name in self.open_anchors:
            self._fail(event, f"alias *{name} refers to a value that contains it")
        found = self.anchors.get(name)
        if found is None:
            self._fail(event, f"alias *{name} names no anchor before it")
        value, size = found
        self.alias_nodes += size
        if self.alias_nodes > MAX_ALIAS_NODES:
            self._fail(
                event,
                f"aliases expand to more than {MAX_ALIAS_NODES:,} values "
                "(an alias bomb?); write the values out",
            )
        if self._expecting_key():
            if isinstance(value, dict | list):
                self._fail(event, "mapping keys must be scalars")
            frame = self.stack[-1]
            frame.key, frame.key_line, frame.has_key = value, event.start_mark.line + 1, True
            return
        path, line = self._place(event)
        self.lines[path] = line
        # A copy, as if written out: nothing downstream sees two places share one object.
        self._add(copy.deepcopy(value), size, line)

    # -- building ------------------------------------------------------------------------

    def _expecting_key(self) -> bool:
        return (
            bool(self.stack)
            and isinstance(self.stack[-1].data, dict)
            and not (self.stack[-1].has_key)
        )

    def _place(self, event: yaml.Event) -> tuple[Path_, int]:
        """The path a value about to be added gets, and the line recorded for it."""
        if not self.stack:
            return (), event.start_mark.line + 1
        frame = self.stack[-1]
        if isinstance(frame.data, list):
            return (*frame.path, len(frame.data)), event.start_mark.line + 1
        if frame.merge_next:
            return frame.path, frame.line  # merged values are placed under their own keys
        return (*frame.path, frame.key), frame.key_line

    def _add(self, value: Any, size: int, line: int) -> None:
        if self.sizes:
            self.sizes[-1] += size
        if not self.stack:
            self.result = value
            return
        frame = self.stack[-1]
        if isinstance(frame.data, list):
            frame.data.append(value)
            return
        if frame.merge_next:
            sources = value if isinstance(value, list) else [value]
            if not all(isinstance(source, dict) for source in sources):
                raise YamlInputError(
                    self.file, "'<<' must merge a mapping", line=line, field=field_name(frame.path)
                )
            frame.merged.extend(sources)
            frame.merge_next = False
        else:
            try:
                frame.data[frame.key] = value
            except TypeError:  # an unhashable key cannot reach here, but be sure
                raise YamlInputError(
                    self.file,
                    "mapping keys must be scalars",
                    line=line,
                    field=field_name(frame.path),
                ) from None
        frame.has_key = False

    def _local(self, tag: str | None) -> bool:
        """An application's own tag (``!Ref``), read as untagged when the caller asks."""
        return self.local_tags and tag is not None and tag.startswith("!") and tag != "!"

    def _construct(self, event: yaml.ScalarEvent) -> Any:
        tag = event.tag
        if tag == "!" or self._local(tag):
            return event.value
        if tag is None:
            tag = self.resolver.resolve(yaml.ScalarNode, event.value, event.implicit)
            if tag not in _SCALAR_TAGS:
                # An unquoted date, "=" or "<<" where no key is: a string, as YAML 1.2's core
                # schema (and Pulumi's reader) has it.
                tag = f"{_TAG}str"
        elif tag not in _SCALAR_TAGS:
            self._fail(event, f"tag {tag.replace(_TAG, '!!')} is not supported")
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
        try:
            # The tag's constructor itself: construct_object would keep every node alive.
            value = self.scalars.yaml_constructors[tag](self.scalars, node)
        except Exception as exc:  # any failure of a core tag's constructor
            # is the value's: PyYAML's raise IndexError ('!!float ""'), KeyError ('!!bool
            # maybe'), ValueError ('!!int 0x'), OverflowError, YAMLError...
            short = tag.replace(_TAG, "!!")
            too_long = "integer string conversion" in str(exc)
            why = ": a number too long to read" if too_long else ""
            self._fail(event, f"{event.value[:40]!r} is not a valid {short}{why}")
        if isinstance(value, float) and not math.isfinite(value):
            self._fail(event, f"{event.value!r} is not a finite number")
        return value

    def _fail(self, event: yaml.Event, message: str, *, key: Any = _NOTHING) -> NoReturn:
        path = self.stack[-1].path if self.stack else ()
        if key is not _NOTHING:
            path = (*path, key)
        elif self.stack and isinstance(self.stack[-1].data, dict) and self.stack[-1].has_key:
            path = (*path, self.stack[-1].key)
        raise YamlInputError(
            self.file, message, line=event.start_mark.line + 1, field=field_name(path) or "yaml"
        )


def field_name(path: Path_) -> str:
    """``workloads[2].gpu`` for a path; a very deep one shortened."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{quoted_key(part)}" if text else quoted_key(part)
    return text if len(text) <= _MAX_FIELD_CHARS else text[: _MAX_FIELD_CHARS - 3] + "..."

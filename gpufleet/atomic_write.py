"""Write the files a command produces so that readers see the old content or the new, never
half of either, and a command writing several files writes all of them or none.

What a user names as the destination is honoured as the shell would: a symlink is written
through to its target (the link stays a link), a device or FIFO is streamed to (a FIFO waits
for its reader, as ``>`` does, but for ``FIFO_WAIT_SECONDS`` at most), ``-`` is standard
output. A name for one of the process's own open descriptors (``/dev/stdout``,
``/dev/stderr``, ``/dev/stdin``, ``/dev/fd/N``,
``/proc/self/fd/N``, or a symlink to one) is written through that descriptor, at its offset
and honouring ``O_APPEND``: ``--export /dev/stdout >> out.txt`` appends to ``out.txt`` after
what the command printed, in order, and never replaces it. Only a regular file is replaced,
through a temporary file in its own folder renamed over it; the file keeps its mode (a new
file gets what ``open`` would give it under the umask).

No temporary file is left behind by an error, Ctrl-C, ``SIGTERM`` or ``SIGHUP``, and almost
never by a ``SIGKILL``, which no process can catch. Where the file system allows it (Linux
``O_TMPFILE``), the new content is written to an unnamed file that has no name to leave
behind until it is complete and synced; it is then linked to ``.<file>.<random>.gpufleet-tmp``
and at once renamed over the file, with ``SIGINT``, ``SIGTERM`` and ``SIGHUP`` held off in
between, so only a ``SIGKILL`` in that instant (or, writing several files, while they are
renamed: the extra names that keep the old content to put back) can leave such a name.
Elsewhere the temporary file is named from the start, so a ``SIGKILL`` while writing can leave
it. An error, Ctrl-C, ``SIGTERM`` or ``SIGHUP`` (turned into ``SystemExit`` while files are
written, unless the process already handles them) never does.

Several files: every new content is written and synced first (where a full disk or a missing
permission shows), then each file is renamed over its target; if a rename fails, the files
already replaced get their old content back (a hard link to it is kept until the end) and files
that did not exist are removed. Streams, which cannot be taken back, are written last.

A folder of files (``staged_folder``) is built under a temporary name beside its destination and
renamed onto it at the end: it appears whole or not at all (a ``SIGKILL`` while it is built can
leave the temporary folder).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpufleet.process_signals import TERMINATING_SIGNALS, signals_as_exit

STDOUT = Path("-")
_TEMP_SUFFIX = ".gpufleet-tmp"
_CHUNK = 1 << 20  # bytes per write(2): a big file is written in pieces
_SYMLINK_LIMIT = 40  # as the kernel's ELOOP

# The process's own descriptors, by the names Linux gives them.
_STANDARD_NAMES = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_DESCRIPTOR_NAME = re.compile(
    r"/dev/fd/(?P<fd>0|[1-9][0-9]*)"
    r"|/proc/(?P<proc>self|thread-self|[1-9][0-9]*(?:/task/[1-9][0-9]*)?)/fd/(?P<pfd>0|[1-9][0-9]*)"
)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8, newlines as given) to ``path``; see the module docstring."""
    write_files([(path, text)])


def write_files(files: Sequence[tuple[Path, str]]) -> None:
    """Write every ``(path, text)``, all or none. Raises ``OSError`` naming the path that
    failed (``exc.filename``); then no regular file has changed."""
    destinations = [(_Destination.of(path), text) for path, text in files]
    staged: list[_Staged] = []
    with signals_as_exit():
        try:
            for destination, text in destinations:
                if not destination.streams:
                    staged.append(_Staged.write(destination, text))
            with _signals_held():
                replaced: list[_Staged] = []
                try:
                    for index, item in enumerate(staged):
                        # The last file replaced is never put back: no old content to keep.
                        item.commit(keep_old=index < len(staged) - 1)
                        replaced.append(item)
                except BaseException:
                    for item in reversed(replaced):
                        item.roll_back()
                    raise
                finally:
                    for item in staged:
                        item.discard()
            for destination, text in destinations:
                if destination.streams:
                    destination.stream(text)
        finally:
            for item in staged:
                item.discard()


@contextlib.contextmanager
def staged_folder(out: Path) -> Iterator[Path]:
    """A new folder to fill, renamed to ``out`` (which must not exist, or be an empty folder)
    when the block ends without error; removed, with everything in it, when it does not."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with signals_as_exit():
        name = tempfile.mkdtemp(prefix=f".{out.name}.", suffix=_TEMP_SUFFIX, dir=out.parent)
        staging = Path(name)
        try:
            yield staging
            staging.chmod(_mode_for(out) if out.exists() else 0o777 & ~_umask())
            staging.replace(out)  # over an empty folder, as rename(2) allows
        finally:
            shutil.rmtree(staging, ignore_errors=True)


@dataclass(frozen=True)
class _Destination:
    given: Path  # as the user named it, for messages
    target: Path  # a symlink's final target; the path itself otherwise
    streams: bool  # stdout, a descriptor, a device, a FIFO, a socket: written to, never replaced
    descriptor: int | None = None  # /dev/stdout, /dev/fd/N, ...: the process's own descriptor

    @classmethod
    def of(cls, path: Path) -> _Destination:
        if path == STDOUT:
            return cls(path, path, streams=True)
        descriptor = _own_descriptor(path)
        if descriptor is not None:
            return cls(path, path, streams=True, descriptor=descriptor)
        try:
            mode = path.stat().st_mode  # follows symlinks
        except FileNotFoundError:
            # A new file, or a dangling symlink: the link's target is created.
            return cls(path, path.resolve(), streams=False)
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder", str(path))
        if stat.S_ISREG(mode):
            return cls(path, path.resolve(), streams=False)
        return cls(path, path, streams=True)

    def stream(self, text: str) -> None:
        if self.given == STDOUT:
            sys.stdout.write(text)
            sys.stdout.flush()
            return
        try:
            if self.descriptor is not None:
                _write_to_descriptor(self.descriptor, text.encode("utf-8"))
                return
            fd = _open_stream(self.given)
            try:
                _write_all(fd, text.encode("utf-8"))
            finally:
                os.close(fd)
        except OSError as exc:
            raise _naming(exc, self.given) from None


# How long a FIFO may go without a reader: ``>`` would wait for ever; a CI job blocked on a
# FIFO nobody reads is a hang, so gpufleet gives up after this and says why.
FIFO_WAIT_SECONDS = 30.0
_FIFO_POLL_SECONDS = 0.05


def _open_stream(path: Path) -> int:
    """A device, FIFO or socket opened for writing without blocking on the open: a FIFO with
    no reader is retried until ``FIFO_WAIT_SECONDS``, then an error naming it. The descriptor
    is then made blocking again, so writes wait for a slow reader as a pipe's do."""
    deadline = time.monotonic() + FIFO_WAIT_SECONDS
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
            break
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # ENXIO: a FIFO no process has open for reading
                raise
            if time.monotonic() >= deadline:
                raise OSError(
                    errno.ENXIO,
                    f"no process read the FIFO within {FIFO_WAIT_SECONDS:g} s",
                    str(path),
                ) from None
            time.sleep(_FIFO_POLL_SECONDS)
    os.set_blocking(fd, True)
    return fd


def _own_descriptor(path: Path) -> int | None:
    """The descriptor ``path`` names when it is (or is a symlink to) ``/dev/stdout``,
    ``/dev/fd/N``, ``/proc/self/fd/N``, ...: opening it would reopen that descriptor's file
    (truncating it, losing ``O_APPEND``), so it is written through the descriptor instead."""
    name = path if path.is_absolute() else Path.cwd() / path
    for _ in range(_SYMLINK_LIMIT):
        found = _descriptor_named(str(name))
        if found is not None:
            return found
        # The folder without its symlinks (/dev/fd is one), then the name's own link.
        folder = name.parent.resolve()
        name = folder / name.name
        found = _descriptor_named(str(name))
        if found is not None:
            return found
        try:
            link = name.readlink()
        except OSError:
            return None  # not a symlink, or not there: an ordinary destination
        name = folder / link
    return None


def _descriptor_named(name: str) -> int | None:
    if name in _STANDARD_NAMES:
        return _STANDARD_NAMES[name]
    match = _DESCRIPTOR_NAME.fullmatch(name)
    if match is None:
        return None
    if match["fd"] is not None:
        return int(match["fd"])
    process = match["proc"].split("/")[0]
    if process not in ("self", "thread-self") and int(process) != os.getpid():
        return None  # another process's descriptor: its file, as any path
    return int(match["pfd"])


def _write_to_descriptor(descriptor: int, data: bytes) -> None:
    """After what the process printed to it, and before what it prints next."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
    own = os.dup(descriptor)  # the same open file: its offset, its O_APPEND
    try:
        _write_all(own, data)
    finally:
        os.close(own)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:_CHUNK])
        view = view[written:]


@dataclass
class _Staged:
    destination: _Destination
    text: str
    unnamed: int | None = None  # an O_TMPFILE descriptor: the content, with no name yet
    temp: Path | None = None  # the content's temporary name
    backup: Path | None = None
    existed: bool = False

    @classmethod
    def write(cls, destination: _Destination, text: str) -> _Staged:
        """The new content on disk, synced, with its mode; unnamed where that can be."""
        target = destination.target
        staged = cls(destination, text)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            staged.unnamed = _open_unnamed(target.parent)
            if staged.unnamed is not None:
                _fill(staged.unnamed, text, _mode_for(target))
            else:
                staged.write_named()
        except BaseException as exc:
            staged.discard()
            if isinstance(exc, OSError):
                raise _naming(exc, destination.given) from None
            raise
        return staged

    def write_named(self) -> None:
        target = self.destination.target
        fd, name = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=_TEMP_SUFFIX, dir=target.parent
        )
        self.temp = Path(name)
        try:
            _fill(fd, self.text, _mode_for(target))
        finally:
            os.close(fd)

    def commit(self, *, keep_old: bool) -> None:
        target = self.destination.target
        self.existed = target.exists()
        try:
            if self.existed and keep_old:
                self.backup = _link_beside(target)
            if self.unnamed is not None:
                self.temp = _name_unnamed(self.unnamed, target)
                if self.temp is None:
                    # This system cannot name an unnamed file: write it again, named.
                    self.write_named()
            assert self.temp is not None
            self.temp.replace(target)
            self.temp = None
        except OSError as exc:
            raise _naming(exc, self.destination.given) from None

    def roll_back(self) -> None:
        # Best effort: the original error is the one to report.
        with contextlib.suppress(OSError):
            target = self.destination.target
            if self.backup is not None:
                self.backup.replace(target)
                self.backup = None
            elif not self.existed:
                target.unlink(missing_ok=True)

    def discard(self) -> None:
        if self.unnamed is not None:
            with contextlib.suppress(OSError):
                os.close(self.unnamed)  # an unnamed file is gone with its last descriptor
            self.unnamed = None
        for leftover in (self.temp, self.backup):
            if leftover is not None:
                with contextlib.suppress(OSError):
                    leftover.unlink(missing_ok=True)
        self.temp = self.backup = None


def _fill(fd: int, text: str, mode: int) -> None:
    _write_all(fd, text.encode("utf-8"))
    os.fchmod(fd, mode)  # after writing, which would clear set-id bits
    os.fsync(fd)


def _open_unnamed(folder: Path) -> int | None:
    """A new file in ``folder`` with no name (Linux ``O_TMPFILE``), or None where the kernel or
    the file system has none; a real error (no permission) shows again on the named file."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag:
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY | os.O_CLOEXEC, 0o600)
    except OSError:
        return None


def _name_unnamed(fd: int, target: Path) -> Path | None:
    """A temporary name beside ``target`` for the unnamed file ``fd``, given as the kernel
    documents: ``linkat`` of ``/proc/self/fd/N`` with ``AT_SYMLINK_FOLLOW``. None where that
    cannot be done (no ``/proc``)."""
    try:
        folder = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        while True:
            temp = _temp_name(target)
            try:
                # A folder descriptor makes Python call linkat(2): link(2) would not follow.
                os.link(f"/proc/self/fd/{fd}", temp.name, dst_dir_fd=folder, follow_symlinks=True)
                return temp
            except FileExistsError:
                continue
            except OSError:
                return None
    finally:
        os.close(folder)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP wait while files are named and renamed (a few system calls
    each), so a temporary name is never left and all files are replaced or none; they are
    acted on just after."""
    held = {signal.SIGINT, *TERMINATING_SIGNALS}
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "pthread_sigmask"
    ):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _mode_for(target: Path) -> int:
    """The existing file's permissions; for a new file, what ``open`` would give it."""
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~_umask()


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


def _temp_name(target: Path) -> Path:
    return target.with_name(f".{target.name}.{os.urandom(4).hex()}{_TEMP_SUFFIX}")


def _link_beside(target: Path) -> Path:
    """A second name for ``target``'s current content, so it can be put back."""
    while True:
        backup = _temp_name(target)
        try:
            os.link(target, backup)
            return backup
        except FileExistsError:
            continue


def _naming(exc: OSError, path: Path) -> OSError:
    return type(exc)(exc.errno, exc.strerror or str(exc), str(path))

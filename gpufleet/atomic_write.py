"""Write the files a command produces so that readers see the old content or the new, never
half of either, and a command writing several files writes all of them or none.

What a user names as the destination is honoured as the shell would: a symlink is written
through to its target (the link stays a link), a device, FIFO or ``/dev/stdout`` is streamed to
(a FIFO waits for its reader, as ``>`` does), ``-`` is standard output. Only a regular file is
replaced, through a temporary file in its own folder renamed over it; the file keeps its mode.

No temporary file is left behind: not on an error, not on Ctrl-C, not on ``SIGTERM`` or
``SIGHUP`` (turned into ``SystemExit`` while files are written, unless the process already
handles them). Only ``SIGKILL`` can leave one, named ``.<file>.<random>.gpufleet-tmp``.

Several files: every temporary file is written and synced first (where a full disk or a
missing permission shows), then each is renamed over its target; if a rename fails, the files
already replaced get their old content back (a hard link to it is kept until the end) and
files that did not exist are removed. Streams, which cannot be taken back, are written last.

A folder of files (``staged_folder``) is built under a temporary name beside its destination and
renamed onto it at the end: it appears whole or not at all.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpufleet.process_signals import signals_as_exit

STDOUT = Path("-")
_TEMP_SUFFIX = ".gpufleet-tmp"


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
            replaced: list[_Staged] = []
            try:
                for item in staged:
                    item.commit()
                    replaced.append(item)
            except BaseException:
                for item in reversed(replaced):
                    item.roll_back()
                raise
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
    streams: bool  # stdout, a device, a FIFO, a socket: written to, never replaced

    @classmethod
    def of(cls, path: Path) -> _Destination:
        if path == STDOUT:
            return cls(path, path, streams=True)
        try:
            mode = path.stat().st_mode  # follows symlinks, /dev/stdout included
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
            # Opened through its name: /dev/stdout resolves to this process's own descriptor.
            with self.given.open("w", encoding="utf-8", newline="") as handle:
                handle.write(text)
        except OSError as exc:
            raise _naming(exc, self.given) from None


@dataclass
class _Staged:
    destination: _Destination
    temp: Path
    backup: Path | None = None
    existed: bool = False

    @classmethod
    def write(cls, destination: _Destination, text: str) -> _Staged:
        target = destination.target
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(
                prefix=f".{target.name}.", suffix=_TEMP_SUFFIX, dir=target.parent
            )
        except OSError as exc:
            raise _naming(exc, destination.given) from None
        staged = cls(destination, Path(name))
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            staged.temp.chmod(_mode_for(target))
        except BaseException as exc:
            staged.discard()
            if isinstance(exc, OSError):
                raise _naming(exc, destination.given) from None
            raise
        return staged

    def commit(self) -> None:
        target = self.destination.target
        self.existed = target.exists()
        try:
            if self.existed:
                self.backup = _link_beside(target)
            self.temp.replace(target)
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
        for leftover in (self.temp, self.backup):
            if leftover is not None:
                with contextlib.suppress(OSError):
                    leftover.unlink(missing_ok=True)


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


def _link_beside(target: Path) -> Path:
    """A second name for ``target``'s current content, so it can be put back."""
    while True:
        backup = target.with_name(f".{target.name}.{os.urandom(4).hex()}{_TEMP_SUFFIX}")
        try:
            os.link(target, backup)
            return backup
        except FileExistsError:
            continue


def _naming(exc: OSError, path: Path) -> OSError:
    return type(exc)(exc.errno, exc.strerror or str(exc), str(path))

"""Writes go through symlinks, stream to FIFOs and devices, write /dev/stdout and /dev/fd/N through
the process's own descriptor, leave no temporary file on any exit (a real SIGTERM, and a SIGKILL
while writing, included) and write several files all or none."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpufleet import atomic_write
from gpufleet.atomic_write import atomic_write_text, write_files
from tests.helpers import ROOT


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".gpufleet-tmp"))


def test_replaces_a_regular_file_and_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "Pulumi.dev.yaml"
    target.write_text("old\n")
    target.chmod(0o600)
    atomic_write_text(target, "new\r\n")
    assert target.read_bytes() == b"new\r\n"
    assert target.stat().st_mode & 0o777 == 0o600
    assert _leftovers(tmp_path) == []


def test_a_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        atomic_write_text(tmp_path / "new.json", "{}")
    finally:
        os.umask(old)
    assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o640


def test_writes_through_a_symlink_to_its_target(tmp_path: Path) -> None:
    real = tmp_path / "real" / "Pulumi.prod.yaml"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "Pulumi.prod.yaml"
    link.symlink_to(Path("real") / "Pulumi.prod.yaml")
    atomic_write_text(link, "new\n")
    assert link.is_symlink()
    assert real.read_text() == "new\n"
    assert _leftovers(tmp_path) == [] and _leftovers(real.parent) == []


def test_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "out.json"
    link.symlink_to(tmp_path / "made.json")
    atomic_write_text(link, "{}")
    assert link.is_symlink() and (tmp_path / "made.json").read_text() == "{}"


def test_streams_to_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    atomic_write_text(fifo, "streamed\n")
    reader.join(timeout=10)
    assert received == [b"streamed\n"]
    assert fifo.is_fifo()  # not replaced by a file
    assert _leftovers(tmp_path) == []


def test_a_full_device_is_an_error_and_stays_a_device() -> None:
    full = Path("/dev/full")
    if not full.is_char_device():
        pytest.fail("this machine has no /dev/full")
    with pytest.raises(OSError) as raised:
        atomic_write_text(full, "x" * 10_000)
    assert raised.value.filename == "/dev/full"
    assert full.is_char_device()


def test_standard_output_by_dash(capsys: pytest.CaptureFixture[str]) -> None:
    atomic_write_text(Path("-"), "to stdout\n")
    assert capsys.readouterr().out == "to stdout\n"


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        atomic_write_text(tmp_path, "x")


def test_several_files_all_or_none_when_one_cannot_be_written(tmp_path: Path) -> None:
    first = tmp_path / "Pulumi.dev.yaml"
    first.write_text("dev old\n")
    not_a_folder = tmp_path / "stacks"
    not_a_folder.write_text("a file where a folder should be")
    second = not_a_folder / "Pulumi.staging.yaml"
    with pytest.raises(OSError) as raised:
        write_files([(first, "dev new\n"), (second, "staging\n")])
    assert raised.value.filename == str(second)
    assert first.read_text() == "dev old\n"
    assert _leftovers(tmp_path) == []


def test_a_failed_rename_puts_back_the_files_already_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dev, staging, prod = (tmp_path / f"Pulumi.{env}.yaml" for env in ("dev", "staging", "prod"))
    dev.write_text("dev old\n")
    real_replace = Path.replace

    def replace_failing_on_prod(self: Path, target: Path) -> Path:
        if Path(target) == prod:
            raise OSError(28, "No space left on device")
        return real_replace(self, target)

    monkeypatch.setattr(Path, "replace", replace_failing_on_prod)
    with pytest.raises(OSError) as raised:
        write_files([(dev, "dev new\n"), (staging, "staging new\n"), (prod, "prod new\n")])
    assert raised.value.filename == str(prod)
    assert dev.read_text() == "dev old\n"  # put back
    assert not staging.exists()  # did not exist before
    assert not prod.exists()
    assert _leftovers(tmp_path) == []


_KILLED_MID_WRITE = textwrap.dedent(
    """
    import os, signal, sys, time
    from pathlib import Path
    from gpufleet.atomic_write import write_files

    real_fsync = os.fsync
    calls = 0

    def fsync_then_stop(fd):
        global calls
        real_fsync(fd)
        calls += 1
        if calls == 2:  # the second file is on disk as a temporary file: stop now
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(30)

    os.fsync = fsync_then_stop
    folder = Path(sys.argv[1])
    write_files([(folder / "a.yaml", "a new"), (folder / "b.yaml", "b new")])
    """
)


def test_sigterm_while_writing_leaves_no_temporary_file_and_no_change(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("a old")
    done = subprocess.run(
        [sys.executable, "-c", _KILLED_MID_WRITE, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 128 + 15, done.stderr
    assert (tmp_path / "a.yaml").read_text() == "a old"
    assert not (tmp_path / "b.yaml").exists()
    assert _leftovers(tmp_path) == []


def test_sigterm_while_renaming_waits_until_every_file_is_replaced(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("a old")
    script = textwrap.dedent(
        """
        import os, signal, sys
        from pathlib import Path
        from gpufleet.atomic_write import write_files

        real_replace = Path.replace

        def replace_after_a_signal(self, target):
            os.kill(os.getpid(), signal.SIGTERM)  # held until the renames are done
            return real_replace(self, target)

        Path.replace = replace_after_a_signal
        folder = Path(sys.argv[1])
        write_files([(folder / "a.yaml", "a new"), (folder / "b.yaml", "b new")])
        print("not reached")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 128 + 15, done.stderr
    assert done.stdout == ""
    assert (tmp_path / "a.yaml").read_text() == "a new"
    assert (tmp_path / "b.yaml").read_text() == "b new"
    assert _leftovers(tmp_path) == []


def _require_unnamed_files(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_TMPFILE | os.O_WRONLY, 0o600)
    except (AttributeError, OSError) as exc:
        pytest.fail(f"the file system of {folder} has no O_TMPFILE: {exc}")
    os.close(fd)


# The child writes through the module and stops at a chosen point: it tells the test it got
# there (a byte on a pipe) and sleeps until the test kills it with SIGKILL.
_STOPPED_FOR_SIGKILL = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from gpufleet.atomic_write import write_files

    folder, ready, where = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]

    def stop():
        os.write(ready, b"r")
        time.sleep(60)

    if where == "writing":  # after the first piece of the first file's content
        real_write = os.write

        def write_then_stop(fd, data):
            written = real_write(fd, data)
            if fd != ready:
                stop()
            return written

        os.write = write_then_stop
    else:  # "synced": both files written and synced, not yet renamed
        real_fsync = os.fsync
        synced = []

        def fsync_then_stop(fd):
            real_fsync(fd)
            synced.append(fd)
            if len(synced) == 2:
                stop()

        os.fsync = fsync_then_stop
    big = "x" * (8 << 20)  # written in pieces
    write_files([(folder / "a.yaml", big), (folder / "b.yaml", big)])
    """
)


@pytest.mark.parametrize("where", ["writing", "synced"])
def test_sigkill_while_writing_leaves_nothing_behind(tmp_path: Path, where: str) -> None:
    _require_unnamed_files(tmp_path)
    (tmp_path / "a.yaml").write_text("a old")
    ready_read, ready_write = os.pipe()
    child = subprocess.Popen(
        [sys.executable, "-c", _STOPPED_FOR_SIGKILL, str(tmp_path), str(ready_write), where],
        pass_fds=(ready_write,),
        stderr=subprocess.PIPE,
    )
    os.close(ready_write)
    try:
        with os.fdopen(ready_read, "rb") as ready:
            got_there = ready.read(1)
    finally:
        child.kill()
        _, stderr = child.communicate(timeout=60)
    assert got_there == b"r", stderr.decode()
    assert child.returncode == -signal.SIGKILL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml"]
    assert (tmp_path / "a.yaml").read_text() == "a old"


def test_without_unnamed_files_a_named_temporary_file_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    target = tmp_path / "Pulumi.dev.yaml"
    target.write_text("old\n")
    target.chmod(0o640)
    write_files([(target, "new\n"), (tmp_path / "other.yaml", "other\n")])
    assert target.read_text() == "new\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert (tmp_path / "other.yaml").read_text() == "other\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Pulumi.dev.yaml", "other.yaml"]


def test_an_unnamed_file_that_cannot_be_linked_is_written_again_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_link = os.link

    def no_proc(src: str, dst: str, **kwargs: object) -> None:
        if str(src).startswith("/proc/"):
            raise FileNotFoundError(2, "No such file or directory", src)
        real_link(src, dst, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "link", no_proc)
    target = tmp_path / "Pulumi.dev.yaml"
    target.write_text("old\n")
    write_files([(target, "new\n"), (tmp_path / "other.yaml", "other\n")])
    assert target.read_text() == "new\n"
    assert (tmp_path / "other.yaml").read_text() == "other\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Pulumi.dev.yaml", "other.yaml"]


_PRINTS_AROUND_A_WRITE = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from gpufleet.atomic_write import atomic_write_text

    print("printed before")
    atomic_write_text(Path(sys.argv[1]), "written\\n")
    print("printed after")
    sys.stdout.write("left in the buffer at exit")
    """
)


@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_standard_output_by_name_is_written_through_the_descriptor(
    tmp_path: Path, name: str
) -> None:
    out = tmp_path / "out.txt"
    out.write_text("kept\n")
    inode = out.stat().st_ino
    with out.open("a") as appending:  # as the shell's >>
        done = subprocess.run(
            [sys.executable, "-c", _PRINTS_AROUND_A_WRITE, name],
            stdout=appending,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    assert out.stat().st_ino == inode  # written to, not replaced
    assert out.read_text() == (
        "kept\nprinted before\nwritten\nprinted after\nleft in the buffer at exit"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_dev_stderr_is_written_through_the_descriptor(tmp_path: Path) -> None:
    err = tmp_path / "err.txt"
    err.write_text("kept\n")
    with err.open("a") as appending:
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from pathlib import Path; from gpufleet.atomic_write import "
                "atomic_write_text; sys.stderr.write('before\\n'); "
                "atomic_write_text(Path('/dev/stderr'), 'written\\n')",
            ],
            stderr=appending,
            timeout=60,
        )
    assert done.returncode == 0
    assert err.read_text() == "kept\nbefore\nwritten\n"


def test_preview_export_to_dev_stdout_follows_the_tree_in_an_appended_file(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out.txt"
    out.write_text("kept\n")
    inode = out.stat().st_ino
    program = ROOT / "tests" / "programs" / "plain_aws"
    args = ["preview", "--program", str(program), "--stack", "dev", "--export", "/dev/stdout"]
    with out.open("a") as appending:
        done = subprocess.run(
            [sys.executable, "-m", "gpufleet", *args],
            stdout=appending,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    assert out.stat().st_ino == inode
    kept, rest = out.read_text().split("\n", 1)
    assert kept == "kept"
    tree, export = rest.split("\n{\n", 1)
    assert "aws:s3/bucket:Bucket checkpoints" in tree
    assert "deployment" in json.loads("{\n" + export)


def test_dev_fd_and_proc_self_fd_write_through_the_descriptor(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    out.write_text("kept\n")
    inode = out.stat().st_ino
    link = tmp_path / "link"
    fd = os.open(out, os.O_WRONLY | os.O_APPEND)
    try:
        link.symlink_to(f"/dev/fd/{fd}")
        atomic_write_text(Path(f"/dev/fd/{fd}"), "one\n")
        atomic_write_text(Path(f"/proc/self/fd/{fd}"), "two\n")
        atomic_write_text(Path(f"/proc/{os.getpid()}/fd/{fd}"), "three\n")
        atomic_write_text(link, "four\n")  # a symlink to one: the same descriptor
        os.write(fd, b"five\n")  # the descriptor stays open
    finally:
        os.close(fd)
    assert out.stat().st_ino == inode
    assert out.read_text() == "kept\none\ntwo\nthree\nfour\nfive\n"
    assert link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "out.txt"]


def test_dev_fd_of_a_socket_is_written_to(tmp_path: Path) -> None:
    # A socket cannot be opened by its /dev/fd name (ENXIO): only its descriptor reaches it.
    mine, theirs = socket.socketpair()
    with mine, theirs:
        atomic_write_text(Path(f"/dev/fd/{mine.fileno()}"), "over a socket\n")
        assert theirs.recv(100) == b"over a socket\n"


def test_dev_fd_of_a_closed_descriptor_is_an_error_naming_it() -> None:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.close(fd)
    with pytest.raises(OSError) as raised:
        atomic_write_text(Path(f"/dev/fd/{fd}"), "x")
    assert raised.value.filename == f"/dev/fd/{fd}"


def test_a_fifo_nobody_reads_is_an_error_after_a_bounded_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fifo = tmp_path / "nobody.fifo"
    os.mkfifo(fifo)
    monkeypatch.setattr(atomic_write, "FIFO_WAIT_SECONDS", 0.2)
    with pytest.raises(OSError, match="no process read the FIFO") as raised:
        atomic_write_text(fifo, "lost\n")
    assert raised.value.filename == str(fifo)


def test_a_command_writing_to_a_fifo_nobody_reads_says_so_and_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpufleet.cli.main import main

    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    monkeypatch.setattr(atomic_write, "FIFO_WAIT_SECONDS", 0.2)
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, ["commitments", "--env", "prod", "--output", str(fifo)])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().endswith("no process read the FIFO within 0.2 s")
    assert result.stderr.count("\n") == 1

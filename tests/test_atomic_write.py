"""Writes go through symlinks, stream to FIFOs and devices, leave no temporary file on any exit
(a real SIGTERM included) and write several files all or none."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from gpufleet.atomic_write import atomic_write_text, write_files


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

"""Regeneration keeps what the user owns byte for byte: comments anywhere (above, on and inside
gpufleet's keys, right below the header), CRLF, a byte-order mark, foreign keys and block
scalars; a secret under a generated key is an error naming it; generated values read the same
in every YAML reader; a layout the splice cannot handle is an error, not a different file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from gpufleet.cli.main import main
from gpufleet.stacks.stack_file import ExistingStackFile, StackFileError, render_stack_file
from gpufleet.yaml_input import parse_yaml
from tests.helpers import EXAMPLE

GENERATED = {
    "gpufleet:environment": "dev",
    "gpufleet:limits": {"maxGpusPerWorkload": 8, "allowOnDemand": False},
    "pulumi:disable-default-providers": ["aws"],
}


def generate(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["generate", *args])
    return result.exit_code, result.stdout, result.stderr


def render(text: str, generated: dict[str, object] | None = None) -> str:
    existing = ExistingStackFile.parse(text, "Pulumi.dev.yaml")
    return render_stack_file(existing, generated or GENERATED, spec_label="s.yaml", env="dev")


def fresh(tmp_path: Path, env: str = "dev") -> Path:
    code, _, err = generate(str(EXAMPLE), "--env", env, "--stacks-dir", str(tmp_path))
    assert code == 0, err
    return tmp_path / f"Pulumi.{env}.yaml"


def regenerate(path: Path, env: str = "dev") -> tuple[int, str]:
    code, _, err = generate(str(EXAMPLE), "--env", env, "--stacks-dir", str(path.parent))
    return code, err


def is_up_to_date(path: Path) -> bool:
    code, err = regenerate(path)
    return code == 0 and f"{path}: up to date" in err


def test_comments_around_and_inside_generated_keys_survive_and_stay_put(tmp_path: Path) -> None:
    path = fresh(tmp_path)
    text = path.read_text()
    edited = (
        text.replace(
            "config:\n", "# below the header: mine\n\nconfig:  # the stack's settings\n", 1
        )
        .replace("  gpufleet:project:", "  # above a generated key\n  gpufleet:project:", 1)
        .replace("  gpufleet:owner: ml-platform@acme.example\n", "  gpufleet:owner: x  # on it\n")
        .replace(
            "    maxGpusPerWorkload: 8\n",
            "    # inside a generated value\n    maxGpusPerWorkload: 7   # why 7\n",
        )
    )
    path.write_text(edited)
    code, err = regenerate(path)
    assert code == 0, err
    new = path.read_text()
    # Every comment is there, in order, byte for byte.
    comments = [line.strip() for line in edited.splitlines() if "#" in line]
    kept = [line.strip() for line in new.splitlines() if "#" in line]
    assert [c[c.index("#") :] for c in comments] == [k[k.index("#") :] for k in kept]
    assert "# below the header: mine\n\nconfig:  # the stack's settings\n" in new
    assert "  # above a generated key\n  gpufleet:project: acme-ml\n" in new
    assert "  gpufleet:owner: ml-platform@acme.example  # on it\n" in new
    assert "    # inside a generated value\n    # why 7\n" in new  # after the new value
    assert "maxGpusPerWorkload: 8\n" in new  # the value itself is regenerated
    # Regenerating again changes nothing: the comments found their place.
    assert is_up_to_date(path)
    assert path.read_text() == new


def test_crlf_and_a_byte_order_mark_come_back_as_they_were(tmp_path: Path) -> None:
    path = fresh(tmp_path)
    user = "  app:note: 'kept'   # my key\r\n"
    crlf = path.read_text().replace("\n", "\r\n") + user
    path.write_bytes(
        ("\ufeff" + crlf.replace("gpufleet:owner: ml-platform", "gpufleet:owner: o")).encode()
    )
    code, err = regenerate(path)
    assert code == 0, err
    raw = path.read_bytes()
    assert raw.startswith("\ufeff".encode()) and raw.count("\ufeff".encode()) == 1
    assert raw.count(b"\n") == raw.count(b"\r\n") > 40  # gpufleet's lines too
    assert raw.decode().endswith(user)
    assert "gpufleet:owner: ml-platform@acme.example\r\n" in raw.decode()
    assert is_up_to_date(path) and path.read_bytes() == raw
    # Without a mark, none is added.
    path.write_bytes(raw.removeprefix("\ufeff".encode()))
    regenerate(path)
    assert not path.read_bytes().startswith("\ufeff".encode())


def test_a_secret_on_a_generated_key_is_an_error_naming_it(tmp_path: Path) -> None:
    path = fresh(tmp_path)
    text = path.read_text().replace(
        "  gpufleet:owner: ml-platform@acme.example\n",
        "  gpufleet:owner:\n    secure: v1:AAAA\n",
    )
    path.write_text(text)
    code, err = regenerate(path)
    assert code == 2
    line = text.splitlines().index("  gpufleet:owner:") + 1
    assert err.startswith(f'{path}:{line}: config."gpufleet:owner": holds a secure: value')
    assert path.read_text() == text  # never overwritten
    # Nested inside a generated value: the path of the secret is named.
    nested = (
        "config:\n  gpufleet:limits:\n    maxGpusPerWorkload: 8\n"
        "    allowOnDemand:\n      secure: v1:BBBB\n"
    )
    with pytest.raises(StackFileError) as raised:
        render(nested)
    assert (raised.value.line, raised.value.field) == (4, 'config."gpufleet:limits".allowOnDemand')


def test_foreign_keys_block_scalars_and_their_place_are_kept() -> None:
    text = (
        "config:\n"
        "  app:first: 1\n"
        "  gpufleet:environment: old\n"
        "  app:script: |\n"
        "    # not a comment: text of the script\n"
        "    gpufleet:environment: also text\n"
        "  gpufleet:limits:\n"
        "    maxGpusPerWorkload: 2\n"
        "  gpufleet:apiToken:\n"
        "    secure: v1:kept\n"
        "  gpufleet:stale: dropped   # but its comment stays\n"
        "  app:last: [a, b]\n"
        "top:level: kept\n"
    )
    new = render(text)
    assert new.split("\n", 3)[3] == (
        "config:\n"
        "  app:first: 1\n"
        "  gpufleet:environment: dev\n"
        "  app:script: |\n"
        "    # not a comment: text of the script\n"
        "    gpufleet:environment: also text\n"
        "  gpufleet:limits:\n"
        "    maxGpusPerWorkload: 8\n"
        "    allowOnDemand: false\n"
        "  pulumi:disable-default-providers:\n"
        "    - aws\n"
        "  gpufleet:apiToken:\n"
        "    secure: v1:kept\n"
        "  # but its comment stays\n"
        "  app:last: [a, b]\n"
        "top:level: kept\n"
    )


def test_an_empty_flow_config_and_a_file_without_config() -> None:
    assert render("config: {}  # empty\n").endswith(
        "config:  # empty\n  gpufleet:environment: dev\n  gpufleet:limits:\n"
        "    maxGpusPerWorkload: 8\n    allowOnDemand: false\n"
        "  pulumi:disable-default-providers:\n    - aws\n"
    )
    new = render("# mine\nencryptionsalt: v1:abc\n")
    assert new.endswith("# mine\nencryptionsalt: v1:abc\n")
    assert yaml.safe_load(new)["config"]["gpufleet:environment"] == "dev"
    with pytest.raises(StackFileError) as raised:
        render("config: {a: 1}\n")
    assert (raised.value.line, raised.value.field) == (1, "config")


def test_a_layout_the_splice_cannot_handle_is_an_error_not_another_file() -> None:
    # A flow sequence over several lines, one of which looks like a generated key.
    tricky = "config:\n  app:list: [\n  gpufleet:environment: x\n  ]\n"
    with pytest.raises(StackFileError, match="cannot merge into this file's layout"):
        render(tricky)


def test_generated_values_read_the_same_in_yaml_1_1_and_1_2() -> None:
    values = ["yes", "on", "NO", "1:20", "0o17", "~", "2026-11-22", "1e3", "plain"]
    new = render("config: {}\n", {"gpufleet:tags": values})
    assert parse_yaml(new, "x").data["config"]["gpufleet:tags"] == values
    assert yaml.safe_load(new)["config"]["gpufleet:tags"] == values


def test_a_spec_path_with_a_line_break_cannot_break_the_header(tmp_path: Path) -> None:
    new = render_stack_file(None, GENERATED, spec_label="a\nconfig: x\u2028.yaml", env="dev")
    assert yaml.safe_load(new)["config"] == GENERATED
    assert new.splitlines()[0].startswith("# Generated by `gpufleet generate a\\nconfig: x")
    # The header is recognised again on regeneration, and nothing of the user's is taken.
    again = render(new + "# mine\n")
    assert again.count("# Generated by") == 1 and again.endswith("# mine\n")


@pytest.mark.parametrize("odd", ["\r", "\x85", "\u2028", "\u2029"])
def test_line_breaks_other_than_lf_and_crlf_are_refused_by_name(tmp_path: Path, odd: str) -> None:
    path = fresh(tmp_path)
    text = path.read_text()
    lines = text.split("\n")
    mixed = "\n".join(lines[:3]) + odd + "\n".join(lines[3:])
    path.write_text(mixed, newline="")
    code, err = regenerate(path)
    assert code == 2
    assert err == (
        f"{path}:3: file: ends a line with a lone carriage return or a Unicode line "
        "separator, which YAML reads as a line break and gpufleet's merge does not: use LF or "
        "CRLF line endings (e.g. dos2unix -c mac FILE), then regenerate\n"
    )
    assert path.read_bytes() == mixed.encode()  # untouched

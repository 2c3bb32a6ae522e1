"""Lines for people on the terminal: names, paths and reasons in them come from users' specs,
programs and files, so control characters show as escapes (``\\x1b``) instead of moving the
cursor, clearing the screen or retitling the terminal. Documents for tools (JSON, SARIF, a
report written to a file) are not messages: they go out as they are."""

from __future__ import annotations

import sys

import click

from gpufleet.terminal_text import escape_controls


def echo(message: str, *, err: bool = False, nl: bool = True) -> None:
    """``message`` on stdout, or on stderr as one line: a line break inside it (a file name or
    an --env value holding one) shows as ``\\n``, so it cannot start a line of its own that
    would read as another problem (``file:1: field: ...``)."""
    text = escape_controls(message)
    if err:
        text = one_line(text)
    click.echo(text, err=err, nl=nl)


def one_line(text: str) -> str:
    return text.replace("\r", "\\r").replace("\n", "\\n")


def echo_document(text: str) -> None:
    """A document (a unified diff) on stdout: byte for byte when piped to a tool (``patch``),
    escaped when a person reads it on a terminal."""
    on_terminal = sys.stdout.isatty()
    click.echo(escape_controls(text) if on_terminal else text, nl=False)

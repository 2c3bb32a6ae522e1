"""Write the pull request's cost comment: every environment's cost against the base branch.

Usage (what .github/workflows/gpufleet.yml runs):

    .venv/bin/python scripts/cost_comment.py --base .gpufleet-base --env dev --env staging \\
        --env prod --output cost-comment.md

For each environment, the base branch's own checkout and install (``--base``, with its
``.venv``) captures its stack as an export (``gpufleet preview --export``, which every gpufleet
release has), and this branch's ``gpufleet cost --compare-to`` prices both with this branch's
engine and renders the diff. Pricing the base with this branch's code is deliberate: a change
to the rates or the engine itself then shows as what it is, not as a change of the stacks. An
environment the base does not have is shown without a diff.

The comment starts with ``MARKER``, which the workflow looks for to update its own comment
rather than add one per push. GitHub refuses comments over 65,536 characters: past that,
each environment's collapsed details are dropped (the job summary has them all), then, should
the rest still not fit (hundreds of workloads in several environments), the lines past it.

Exit status: 0 written; 1 written, and some environment is over its budget (or has GPU
capacity it cannot price while a budget is set); 2 a command failed on bad input.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from gpufleet.atomic_write import atomic_write_text
from gpufleet.github_text import COMMENT_LIMIT, markdown_code, markdown_text

MARKER = "<!-- gpufleet-cost -->"
LIMIT = COMMENT_LIMIT  # characters
DETAILS = "<details>"
DETAILS_LEFT_OUT = "\n_Details left out to fit a comment; the job summary has them._\n"
LINES_LEFT_OUT = "\n_{} line(s) left out to fit a comment; the job summary has them._\n"


def environment_section(
    env: str, base: Path, base_gpufleet: list[str], gpufleet: list[str], scratch: Path
) -> tuple[str, int]:
    """(the markdown for one environment, the exit status of its ``gpufleet cost``)."""
    export = scratch / f"base-{env}.json"
    captured = subprocess.run(
        [*base_gpufleet, "preview", "--env", env, "--export", str(export)],
        cwd=base,
        capture_output=True,
        text=True,
        check=False,
    )
    compare = ["--compare-to", str(export)] if captured.returncode == 0 else []
    priced = subprocess.run(
        [*gpufleet, "cost", "--env", env, *compare, "--format", "markdown"],
        capture_output=True,
        text=True,
        check=False,
    )
    if priced.returncode >= 2 or not priced.stdout:
        failed = markdown_text(priced.stderr.strip())
        return f"### gpufleet cost: {markdown_code(env)}\n\nFailed: {failed}\n", 2
    text = priced.stdout
    if not compare:
        why = captured.stderr.strip().splitlines()[-1:] or ["no stack"]
        text += (
            f"\n_No base to compare with: the base branch's {markdown_code(env)} stack: "
            f"{markdown_text(why[0])}_\n"
        )
    return text, priced.returncode


def comment(sections: list[str]) -> str:
    body = "\n".join([MARKER, *sections])
    if len(body) <= LIMIT:
        return body
    trimmed = [s.split(DETAILS, 1)[0].rstrip() + "\n" for s in sections]
    body = "\n".join([MARKER, *trimmed]) + DETAILS_LEFT_OUT
    if len(body) <= LIMIT:
        return body
    lines = body.splitlines(keepends=True)
    room = LIMIT - len(LINES_LEFT_OUT.format(len(lines)))
    kept, used = 0, 0
    while kept < len(lines) and used + len(lines[kept]) <= room:
        used += len(lines[kept])
        kept += 1
    return "".join(lines[:kept]) + LINES_LEFT_OUT.format(len(lines) - kept)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the base branch's checkout")
    parser.add_argument("--env", dest="envs", action="append", required=True)
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument(
        "--base-gpufleet",
        help="the base's gpufleet command (default: <base>/.venv/bin/gpufleet)",
    )
    parser.add_argument(
        "--gpufleet", default=str(Path(sys.executable).with_name("gpufleet")), help="this branch's"
    )
    args = parser.parse_args(argv)
    base_gpufleet = [args.base_gpufleet or str(args.base.resolve() / ".venv" / "bin" / "gpufleet")]
    sections, worst = [], 0
    with tempfile.TemporaryDirectory() as scratch:
        for env in args.envs:
            text, status = environment_section(
                env, args.base, base_gpufleet, [args.gpufleet], Path(scratch)
            )
            sections.append(text)
            worst = max(worst, status)
    atomic_write_text(args.output, comment(sections))
    print(f"{args.output}: written ({len(args.envs)} environments)", file=sys.stderr)
    return worst


if __name__ == "__main__":
    sys.exit(main())

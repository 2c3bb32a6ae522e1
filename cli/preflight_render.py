"""How ``gpufleet preflight`` prints: a table of the quotas the stack counts against, and
what could not be checked; or the JSON ``plan --respect-quotas`` reads."""

from __future__ import annotations

import io
import json

from gpufleet.cli import tables
from gpufleet.cli.tables import L, R
from gpufleet.preflight.preflight_run import Preflight


def render(found: Preflight, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(found.as_dict(), indent=2) + "\n"
    buffer = io.StringIO()
    console = tables.console(buffer)
    grid = tables.table(
        ("cloud", L),
        ("region", L),
        ("quota", L),
        ("market", L),
        ("needed", R),
        ("free", R),
        ("limit", R),
        ("", L),
        ("workloads", L),
    )
    for check in found.checks:
        q = check.quota
        grid.add_row(
            q.cloud,
            q.region,
            q.name,
            q.market or "any",
            f"{check.needed:g} {q.unit}",
            f"{q.free:g}",
            f"{q.limit:g}" + ("" if q.used is not None else " (use not read)"),
            tables.styled("SHORT", "red") if check.short else "ok",
            ", ".join(check.workloads),
        )
    tables.print_table(console, grid)
    for line in found.unchecked:
        console.print(f"unchecked: {line}")
    for line in found.problems:
        console.print(f"problem: {line}")
    for line in found.skipped:
        console.print(f"not checked here: {line}")
    for score in found.spot_scores:
        where = f"{score.instances} x {score.instance_type} in {score.region}"
        if score.score is None:
            console.print(f"spot placement score of {where}: not read ({score.why})")
        else:
            low = " (low: a request this size is unlikely to succeed now)" if score.low else ""
            console.print(f"spot placement score of {where}: {score.score}/10{low}")
    short = sum(c.short for c in found.checks)
    verdict = "fits" if found.ok else "does not fit"
    console.print(
        f"{found.environment}: {verdict} ({short} short, {len(found.unchecked)} unchecked, "
        f"{len(found.problems)} clouds unread); AWS gives limits, not use: what else runs there "
        "counts too"
    )
    return buffer.getvalue()

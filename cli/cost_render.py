"""Rendering for ``gpufleet cost``: a table for people, JSON for scripts (``cost_report``'s
documented shape, plus the diff), a pull-request comment in markdown (totals and the largest
changes first, details collapsed), and GitHub workflow commands with a job summary.

Money is in US dollars, per month unless a column says per hour. A rate that is not the
resource's own region's catalog price is marked ``~`` (estimated) and the reason listed; a
resource with no price says ``unpriced``, never $0.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any

from rich.text import Text

from gpufleet.capacity.cost_diff import CostDiff, ResourceChange
from gpufleet.capacity.cost_engine import Amount, ResourceCost, WorkloadCost
from gpufleet.capacity.cost_report import Budget, CostReport, vocabulary_keys
from gpufleet.capacity.plan_drift import Drift
from gpufleet.capacity.stack_cost import CostOutcome
from gpufleet.cli import tables
from gpufleet.cli.rendered import Rendered
from gpufleet.cli.tables import L, R
from gpufleet.engine.secret_mask import SecretMask
from gpufleet.github_text import (
    ANNOTATIONS_PER_KIND,
    COMMENT_LIMIT,
    SUMMARY_LIMIT,
    command_data,
    command_property,
    lines_that_fit,
    markdown_code,
    markdown_text,
    size_of,
)

ESTIMATED = "~"
UNPRICED = "unpriced"
PER_RUN = "per run"
# The largest changes a pull-request comment lists before the collapsed details.
TOP_CHANGES = 10


def render(outcome: CostOutcome, fmt: str, *, summary_used: int | None = None) -> Rendered:
    """The report in ``fmt``; with ``github`` and ``summary_used`` (the bytes the step's
    summary file holds already), the job summary too."""
    if fmt == "json":
        data = outcome.mask.within(report_json(outcome), keep=vocabulary_keys())
        return Rendered(json.dumps(data, indent=2, allow_nan=False) + "\n")
    if fmt == "markdown":
        comment = markdown(outcome)
        note = comment.note(f"{COMMENT_LIMIT:,} characters per pull-request comment")
        return Rendered(comment.text, notes=[f"markdown: {note}"] if note else [])
    if fmt == "github":
        text = "".join(line + "\n" for line in workflow_commands(outcome))
        if summary_used is None:
            return Rendered(text)
        # The newline after it is the summary's too.
        summary = markdown(outcome, limit=max(SUMMARY_LIMIT - summary_used - 1, 0))
        note = summary.note(f"{SUMMARY_LIMIT // 1024} KiB per step's job summary")
        return Rendered(text, summary.text, [f"job summary: {note}"] if note else [])
    return Rendered(table(outcome))


# --- JSON ----------------------------------------------------------------------------------


def report_json(outcome: CostOutcome) -> dict[str, Any]:
    data = outcome.report.as_dict()
    if outcome.diff is not None:
        data["diff"] = diff_json(outcome.diff)
    return data


def diff_json(diff: CostDiff) -> dict[str, Any]:
    return {
        "base": {
            "project": diff.base["project"],
            "stack": diff.base["stack"],
            "expected_monthly_usd": diff.total("base", "expected"),
            "maximum_monthly_usd": diff.total("base", "maximum"),
        },
        "delta": {
            "expected_monthly_usd": round(diff.delta("expected"), 2),
            "maximum_monthly_usd": round(diff.delta("maximum"), 2),
        },
        "resources": [
            {
                "status": c.status,
                "workload": c.workload,
                "name": c.name,
                "urn": (c.head or c.base or {}).get("urn"),
                "changes": list(c.changes),
                **{
                    f"{which}_monthly_usd": {
                        "base": round(c.monthly("base", which), 2),
                        "head": round(c.monthly("head", which), 2),
                        "delta": round(c.delta(which), 2),
                    }
                    for which in ("expected", "maximum")
                },
            }
            for c in diff.changed
        ],
    }


# --- table ---------------------------------------------------------------------------------


def _cost_cell(amount: Amount, line: ResourceCost | None = None) -> str | Text:
    if amount.monthly_usd is None:
        return Text(UNPRICED, style="yellow")
    text = tables.money(amount.monthly_usd)
    return text + ESTIMATED if line is not None and line.estimated else text


def _instances(line: ResourceCost) -> str:
    expected, most = line.expected.instances, line.maximum.instances
    count = "?" if expected is None else f"{expected:g}"
    if most != expected:
        count += f"..{'?' if most is None else f'{most:g}'}"
    return f"{count} x {_machines(line.instance_types)}"


# More machines than a cell shows: a group choosing by attributes may launch dozens.
MACHINES_SHOWN = 3


def _machines(names: tuple[str, ...]) -> str:
    if len(names) <= MACHINES_SHOWN:
        return "/".join(names) or "?"
    return f"{'/'.join(names[:MACHINES_SHOWN])}/... ({len(names)} types)"


def _pricing(line: ResourceCost) -> str:
    if line.outside_stack:
        return f"{line.pricing}, not in totals"
    return line.pricing


def table(outcome: CostOutcome) -> str:
    report, diff = outcome.report, outcome.diff
    out = io.StringIO()
    console = tables.console(out)
    mask = outcome.mask
    console.print(_title(report, mask))
    plan = report.plan_monthly_usd is not None
    columns = [
        ("workload / resource", L),
        ("kind", L),
        ("pricing", L),
        ("instances", L),
        ("$/hour", R),
        ("expected $/month", R),
        ("maximum $/month", R),
    ]
    if plan:
        columns.append(("plan $/month", R))
    if diff is not None:
        columns += [("base $/month", R), ("change", R)]
    grid = tables.table(*columns)
    changes = _changes_by_key(diff)
    workloads = {w.name: w for w in report.cost.workloads}
    names = list(workloads)
    if diff is not None:
        names += [w.name for w in diff.workloads if w.name not in workloads]
    for name in names:
        workload = workloads.get(name)
        # Values from the stack masked cell by cell (not the printed text, so the columns keep
        # their widths), before the console escapes them; kind and pricing are gpufleet's words.
        row: list[str | Text] = [tables.bold(mask(name)), "", "", ""]
        if workload is None:  # every resource of it removed
            row += ["", tables.money(0.0), tables.money(0.0)]
        else:
            row += _workload_sums(workload)
        if plan:
            planned = None if workload is None else workload.plan_monthly_usd
            row.append("-" if planned is None else tables.money(planned))
        if diff is not None:
            row += _workload_change(diff, name)
        grid.add_row(*row)
        for line in workload.resources if workload is not None else ():
            rate = "" if line.rate_usd is None else f"{line.rate_usd:.4f}"
            row = [
                f"  {mask(line.name)}",
                line.kind,
                _pricing(line),
                mask(_instances(line), line.urn),
                rate + (ESTIMATED if rate and line.estimated else ""),
                _cost_cell(line.expected, line),
                _cost_cell(line.maximum, line),
            ]
            if plan:
                row.append("")
            if diff is not None:
                row += _resource_change(changes.get(line.urn))
            grid.add_row(*row)
        found = diff.by_workload.get(name) if diff is not None else None
        for change in found.resources if found is not None else ():
            if change.status == "removed":
                kind = (change.base or {}).get("kind", "")
                row = [f"  {mask(change.name)}", kind, "", "", "", "", ""]
                if plan:
                    row.append("")
                grid.add_row(*row, *_resource_change(change))
    grid.add_section()
    unpriced = len(report.cost.unpriced)
    total = [
        tables.bold(f"total ({_leaving_out(unpriced)})" if unpriced else "total"),
        "",
        "",
        "",
        _sum(report.cost.total("expected", hourly=True), unpriced),
        _sum(report.cost.total("expected"), unpriced),
        _sum(report.cost.total("maximum"), unpriced),
    ]
    if plan:
        total.append(tables.money(report.plan_monthly_usd or 0.0))
    if diff is not None:
        total += [
            tables.money(diff.total("base", "expected")),
            _signed(diff.delta("expected")),
        ]
    grid.add_row(*total)
    tables.print_table(console, grid)
    for line in _footnotes(report):
        console.print(outcome.mask(line))
    return out.getvalue()


def _title(report: CostReport, mask: SecretMask) -> Text:
    return tables.joined(
        tables.bold(mask(report.stack)),
        mask(f": GPU cost of {report.project}, prices as of {report.cost.catalog_as_of}"),
    )


def _drift_line(drift: Drift) -> str:
    return f"plan drift: {drift.message}"


def _commitments_line(report: CostReport) -> str | None:
    """What reservations cost above the commitments their plan assumes, while none is held."""
    awaiting = report.cost.uncommitted_usd
    if awaiting <= 0:
        return None
    named = [r.name for r in report.cost.resources if r.uncommitted_usd > 0]
    return (
        f"commitments: ${tables.money(awaiting)}/month of the expected cost is reserved capacity "
        f"at the on-demand rate ({', '.join(named)}): the plan assumes commitments that no held "
        "one pays for; gpufleet commitments --env "
        f"{report.stack} verifies them; declare held ones under site:commitments, or pass "
        "--commitments FILE"
    )


def _limit_line(report: CostReport, limit: Budget) -> str:
    """The budget (or the worst-case cap) and where the stack stands against it."""
    total = report.cost.total(limit.estimate)
    share = 100 * total / limit.monthly_usd
    over = report.over_usd(limit)
    verdict = f"over by ${tables.money(over)}" if over is not None else f"{share:.0f}% used"
    advisory = "" if limit.mandatory else f" ({limit.level})"
    return (
        f"{limit.what}{advisory} ${tables.money(limit.monthly_usd)}/month for the "
        f"{limit.estimate} cost (${tables.money(total)}): {verdict}; set by {limit.source}"
    )


def _footnotes(report: CostReport) -> list[str]:
    notes = [_limit_line(report, limit) for limit in report.limits]
    notes += [_drift_line(drift) for drift in report.drift]
    notes += list(filter(None, [_commitments_line(report)]))
    for line in report.cost.resources:
        if line.unpriced is not None:
            notes.append(f"{UNPRICED}: {line.name}: {line.unpriced}")
    for line in report.cost.resources:
        for why in line.estimated:
            notes.append(f"{ESTIMATED} {line.name}: {why}")
    for line in report.cost.resources:
        for note in line.notes:
            notes.append(f"note: {line.name}: {note}")
    for line in report.cost.resources:
        if line.per_run:
            per_run = line.expected.monthly_usd
            cost = UNPRICED if per_run is None else f"${tables.money(per_run)}"
            notes.append(
                f"per run: {line.name}: {cost} a run of at most {line.expected.hours:g} h"
                + ("; runs start outside the stack" if line.outside_stack else "")
            )
    for item in report.cost.not_priced:
        named = f" ({', '.join(item.resources)})" if item.resources else ""
        notes.append(f"not priced: {item.what}{named}: {item.why}")
    notes.append(
        "expected: each resource at the size its own settings run (desired / min size) "
        "730 h a month, what its own weekly schedule runs, or above that its declared use "
        "(expected-minutes); maximum: every group at its max size."
    )
    return notes


def _changes_by_key(diff: CostDiff | None) -> dict[str, ResourceChange]:
    if diff is None:
        return {}
    return {c.head["urn"]: c for w in diff.workloads for c in w.resources if c.head is not None}


def _workload_change(diff: CostDiff, name: str) -> list[str | Text]:
    found = diff.by_workload.get(name)
    if found is None:
        return ["", ""]
    return [tables.money(found.monthly("base", "expected")), _signed(found.delta("expected"))]


def _resource_change(change: ResourceChange | None) -> list[str | Text]:
    if change is None:
        return ["", ""]
    base = "-" if change.base is None else tables.money(change.monthly("base", "expected"))
    if change.status == "unchanged":
        return [base, ""]
    delta = _signed(change.delta("expected"))
    if change.head is not None and change.head["unpriced"] is not None:
        delta = UNPRICED
    return [base, delta if change.status == "changed" else f"{change.status} {delta}"]


def _signed(value: float, unit: str = "") -> str:
    if abs(value) < 0.005:
        return f"{unit}0.00"
    return f"{'+' if value > 0 else '-'}{unit}{tables.money(abs(value))}"


# --- markdown: the pull-request comment ----------------------------------------------------


def _workload_sums(w: WorkloadCost, unit: str = "") -> list[str]:
    """A workload's $/hour, expected and maximum $/month cells."""
    if not any(r.in_totals for r in w.resources):
        return [PER_RUN] * 3  # its runs start outside the stack: a footnote prices one
    unpriced = len(w.unpriced)
    return [
        _sum(w.total("expected", hourly=True), unpriced),
        _sum(w.total("expected"), unpriced, unit),
        _sum(w.total("maximum"), unpriced, unit),
    ]


def _monthly(total: float, unpriced: int) -> str:
    """A headline amount: never $0.00 for what has no price at all."""
    return UNPRICED if unpriced and not total else f"${tables.money(total)}/month"


def _sum(total: float, unpriced: int, unit: str = "") -> str:
    """A sum of money that leaves out ``unpriced`` resources says so: never $0 by omission."""
    if not unpriced:
        return f"{unit}{tables.money(total)}"
    if not total:
        return UNPRICED
    return f"{unit}{tables.money(total)} + {UNPRICED}"


def _leaving_out(unpriced: int) -> str:
    """What a total says when it cannot be the whole cost."""
    return f"not counting {unpriced} unpriced GPU resource{'s' if unpriced > 1 else ''}"


def _row(*cells: str) -> str:
    """A markdown table row of cells already made safe."""
    return "| " + " | ".join(cells) + " |"


def _usd(value: float | None) -> str:
    return UNPRICED if value is None else f"${tables.money(value)}"


# Workloads that left their plan named in the comment's head (the rest counted).
_DRIFT_LINES = 5


def markdown(outcome: CostOutcome, *, limit: int = COMMENT_LIMIT) -> FittedMarkdown:
    """The comment, at most ``limit`` bytes of UTF-8 (with a newline after): past it the rows
    of the workload table, then of the details, then their footnotes are left out, and a line
    says how many; empty when not even the headline fits."""
    report, diff = outcome.report, outcome.diff
    md = _Escape(outcome.mask)
    cost = report.cost
    expected, maximum = cost.total("expected"), cost.total("maximum")
    head = [f"### gpufleet cost: {md.code(report.stack)}", ""]
    asides = []
    if diff is not None:
        delta = diff.delta("expected")
        base = diff.total("base", "expected")
        percent = f", {100 * delta / base:+.1f}%" if base >= 0.01 else ""
        asides.append(f"{_signed(delta, '$')}{percent} against the base")
    if cost.unpriced:
        asides.append(_leaving_out(len(cost.unpriced)))
    unpriced = len(cost.unpriced)
    headline = f"**{_monthly(expected, unpriced)} expected**"
    if asides:
        headline += f" ({'; '.join(asides)})"
    headline += f" · maximum {_monthly(maximum, unpriced)}"
    if report.plan_monthly_usd is not None:
        headline += f" · plan {_usd(report.plan_monthly_usd)}/month"
    head += [headline, ""]
    for held in report.limits:
        marker = ":white_check_mark:"
        if report.over_usd(held) is not None:
            marker = ":x:" if report.fails_budget else ":warning:"
        head += [f"{marker} {md.text(_limit_line(report, held))}", ""]
    if cost.unpriced:
        head += [_unpriced_line(cost.unpriced, md), ""]
    drifted = report.drift
    if drifted:
        # A hand edit the spec did not make is what a reviewer must see first.
        shown = drifted[:_DRIFT_LINES]
        head += [f":warning: {md.text(_drift_line(d))}" for d in shown]
        if len(drifted) > len(shown):
            head.append(f":warning: and {len(drifted) - len(shown)} more workloads left their plan")
        head.append("")
    awaiting = _commitments_line(report)
    if awaiting is not None:
        head += [f":information_source: {md.text(awaiting)}", ""]
    if diff is not None:
        head += _markdown_diff(diff, md)
    workloads = _markdown_workloads(report, md)
    details = _markdown_details(report, md)
    footnotes = [f"- {md.text(note)}" for note in _footnotes(report)]
    details_end = ["", f"Prices as of {report.cost.catalog_as_of}.", "", "</details>"]
    fixed = [*head, *_workload_head(report), "", *_details_head(len(details)), "", *details_end]
    room = limit - size_of(fixed) - _LEFT_OUT_LINE
    rows = len(workloads) + len(details) + len(footnotes)
    if room < 0:
        return FittedMarkdown("", rows)
    kept = []
    for part in (workloads, details, footnotes):
        count = lines_that_fit(part, room)
        kept.append(part[:count])
        room -= size_of(part[:count])
    left_out = rows - sum(len(part) for part in kept)
    out = [*head, *_workload_head(report), *kept[0], ""]
    if left_out:
        out += [f"**{_left_out(left_out)}; `gpufleet cost --format json` lists them all.**", ""]
    out += [*_details_head(len(details)), *kept[1], "", *kept[2], *details_end]
    return FittedMarkdown("\n".join(out).rstrip() + "\n", left_out)


@dataclass(frozen=True)
class _Escape:
    """Text from the stack masked, then escaped for markdown or a workflow command: in that
    order, as escaping changes how a secret is spelled."""

    mask: SecretMask

    # ``urn``: the resource the text is said of (``SecretMask``).
    def text(self, value: str, urn: str | None = None) -> str:
        return markdown_text(self.mask(value, urn))

    def code(self, value: str) -> str:
        return markdown_code(self.mask(value))

    def data(self, value: str, urn: str | None = None) -> str:
        return command_data(self.mask(value, urn))

    def property(self, value: str) -> str:
        return command_property(self.mask(value))


@dataclass(frozen=True)
class FittedMarkdown:
    text: str
    left_out: int  # rows not in it: over the size limit

    def note(self, limit: str) -> str | None:
        """For stderr: what was left out, against GitHub's ``limit`` (words)."""
        if not self.left_out:
            return None
        return (
            f"{self.left_out} row(s) left out: GitHub takes at most {limit} "
            "(--format json lists them all)"
        )


def _left_out(rows: int) -> str:
    return f"{rows} row(s) left out to stay within GitHub's size limit"


# Bytes kept for the line saying how many rows were left out.
_LEFT_OUT_LINE = 200
# The unpriced resources the warning under the headline names; the details list them all.
_UNPRICED_NAMED = 10


def _unpriced_line(unpriced: list[ResourceCost], md: _Escape) -> str:
    named = ", ".join(
        f"{md.code(r.name)} ({md.text(r.unpriced or '', r.urn)})"
        for r in unpriced[:_UNPRICED_NAMED]
    )
    more = len(unpriced) - _UNPRICED_NAMED
    if more > 0:
        named += f" and {more} more (below)"
    return f":warning: {len(unpriced)} GPU resource(s) cannot be priced: {named}"


def _markdown_diff(diff: CostDiff, md: _Escape) -> list[str]:
    changed = diff.changed
    out = [
        "| | base | this change | delta |",
        "|---|---:|---:|---:|",
    ]
    for which in ("expected", "maximum"):
        out.append(
            f"| {which} $/month | {_usd(diff.total('base', which))} | "
            f"{_usd(diff.total('head', which))} | {_signed(diff.delta(which), '$')} |"
        )
    out.append("")
    unpriced = {side: diff.unpriced(side) for side in ("base", "head")}
    if any(unpriced.values()):
        out += [
            f":warning: Totals leave out GPU resources without a price: {unpriced['base']} in "
            f"the base, {unpriced['head']} in this change; the delta is of what is priced.",
            "",
        ]
    if not changed:
        out += ["No GPU resource changes cost.", ""]
        return out
    out += [
        f"**Largest changes** ({min(len(changed), TOP_CHANGES)} of {len(changed)})",
        "",
        "| workload | resource | change | expected $/month | delta |",
        "|---|---|---|---:|---:|",
    ]
    for c in changed[:TOP_CHANGES]:
        what = c.status if c.status != "changed" else "; ".join(c.changes)
        unpriced = c.head is not None and c.head["unpriced"] is not None
        head = UNPRICED if unpriced else _usd(c.monthly("head", "expected"))
        if c.head is None:
            head = "-"
        delta = UNPRICED if unpriced else _signed(c.delta("expected"), "$")
        out.append(_row(md.text(c.workload), md.code(c.name), md.text(what), head, delta))
    out.append("")
    return out


def _workload_head(report: CostReport) -> list[str]:
    header = "| workload | $/hour | expected $/month | maximum $/month |"
    rule = "|---|---:|---:|---:|"
    if report.plan_monthly_usd is not None:
        header += " plan $/month |"
        rule += "---:|"
    return [header, rule]


def _markdown_workloads(report: CostReport, md: _Escape) -> list[str]:
    """The workload table's rows."""
    plan = report.plan_monthly_usd is not None
    out = []
    for w in report.cost.workloads:
        row = _row(md.text(w.name), *_workload_sums(w, "$"))
        if plan:
            row += f" {_usd(w.plan_monthly_usd) if w.plan_monthly_usd is not None else '-'} |"
        out.append(row)
    return out


def _details_head(resources: int) -> list[str]:
    return [
        f"<details><summary>Every GPU resource ({resources}), and what is not priced</summary>",
        "",
        "| workload | resource | pricing | instances | $/hour | expected $/month | "
        "maximum $/month |",
        "|---|---|---|---|---:|---:|---:|",
    ]


def _markdown_details(report: CostReport, md: _Escape) -> list[str]:
    """The collapsed table's rows: every GPU resource."""
    out = []
    for line in report.cost.resources:
        mark = ESTIMATED if line.estimated else ""
        rate = "" if line.rate_usd is None else f"{line.rate_usd:.4f}{mark}"
        out.append(
            _row(
                md.text(line.workload),
                md.code(line.name),
                markdown_text(_pricing(line)),  # gpufleet's words
                md.text(_instances(line), line.urn),
                rate,
                f"{_usd(line.expected.monthly_usd)}{mark}",
                f"{_usd(line.maximum.monthly_usd)}{mark}",
            )
        )
    return out


# --- GitHub workflow commands --------------------------------------------------------------


def workflow_commands(outcome: CostOutcome) -> list[str]:
    """``::error`` for what fails a mandatory budget (over it; GPU capacity it cannot price),
    as ``gpu-budget`` would; ``::warning`` for the same under an advisory budget and for other
    unpriced resources; a ``::notice`` with the totals."""
    report = outcome.report
    escape = _Escape(outcome.mask)
    cost = report.cost
    lines = []
    title = f"title=gpufleet cost {escape.property(report.stack)}"
    # What fails a mandatory budget is an error, as gpu-budget's violations are; under an
    # advisory budget, a warning.
    breaking = "error" if report.fails_budget else "warning"
    for limit in report.limits:
        if report.over_usd(limit) is not None:
            lines.append(f"::{breaking} {title}::{escape.data(_limit_line(report, limit))}")
    failing = {r.urn for r in cost.unpriceable} if report.limits else set()
    shown = {"error": len(lines) if breaking == "error" else 0}
    shown["warning"] = len(lines) - shown["error"]
    for drift in report.drift[: max(ANNOTATIONS_PER_KIND - shown["warning"], 0)]:
        lines.append(f"::warning {title}::{escape.data(_drift_line(drift))}")
        shown["warning"] += 1
    awaiting = _commitments_line(report)
    if awaiting is not None:
        lines.append(f"::notice {title}::{escape.data(awaiting)}")
    left_out = 0
    # What fails the budget first: the annotations GitHub shows are the ones that matter.
    for r in sorted(cost.unpriced, key=lambda r: r.urn not in failing):
        level = breaking if r.urn in failing else "warning"
        if shown[level] == ANNOTATIONS_PER_KIND:
            left_out += 1
            continue
        shown[level] += 1
        lines.append(
            f"::{level} {title}::{escape.data(f'{r.name}: cannot be priced: {r.unpriced}', r.urn)}"
        )
    unpriced = len(cost.unpriced)
    summary = (
        f"{report.stack}: {_monthly(cost.total('expected'), unpriced)} expected, "
        f"{_monthly(cost.total('maximum'), unpriced)} maximum"
    )
    if cost.unpriced:
        summary += f", {_leaving_out(len(cost.unpriced))}"
    if outcome.diff is not None:
        summary += f" ({_signed(outcome.diff.delta('expected'), '$')} against the base)"
    if left_out:
        summary += (
            f"; {left_out} unpriced resource(s) not annotated: GitHub shows "
            f"{ANNOTATIONS_PER_KIND} error and {ANNOTATIONS_PER_KIND} warning annotations per "
            "step (the job summary lists them)"
        )
    lines.append(f"::notice {title}::{escape.data(summary)}")
    return lines

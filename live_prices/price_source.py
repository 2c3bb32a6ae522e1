"""What a cloud's price reader returns: its offers in the catalog's columns, how many price
records it read to make them, and what it left out and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from gpufleet.clouds import Cloud
from gpufleet.planner.catalog import Offer


@dataclass(frozen=True)
class SourceResult:
    cloud: Cloud
    offers: list[Offer]
    # Price records read (Price List products, retail price items, billing SKUs).
    price_rows: int = 0
    # Machines or prices left out, one line each, for people: a GPU model the vocabulary does
    # not know, a machine with no on-demand price.
    skipped: list[str] = field(default_factory=list)


class RefreshError(Exception):
    """A refresh that cannot finish: one line per problem; nothing is written."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def shape_error(cloud: Cloud, call: str, what: str) -> RefreshError:
    """An API answer that is not the shape its documentation gives: nothing is written."""
    return RefreshError([f"{cloud}: {call}: an answer not in the documented shape: {what}"])


def read_at(now: datetime) -> str:
    """A row's ``as_of``: the UTC time it was read, to the second."""
    return now.strftime("%Y-%m-%dT%H:%M:%SZ")

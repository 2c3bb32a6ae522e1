"""Rebuild planner/data/catalog.csv and catalog_cleaning.csv from a price snapshot.

Usage: .venv/bin/python scripts/build_catalog.py [--source catalog-snapshot]
    [--overrides catalog-overrides] [--out planner/data]
Prints what each cleaning rule did; the full per-row log goes to catalog_cleaning.csv.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from gpufleet.atomic_write import atomic_write_text
from gpufleet.planner.catalog import write_catalog_csv
from gpufleet.planner.catalog_build import OVERRIDES, build_catalog, write_cleaning_log

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--source", type=Path, default=ROOT / "catalog-snapshot")
    parser.add_argument("--overrides", type=Path, default=ROOT / OVERRIDES)
    parser.add_argument("--out", type=Path, default=ROOT / "planner" / "data")
    args = parser.parse_args(argv)
    try:
        result = build_catalog(args.source, args.overrides)
    except (OSError, ValueError, KeyError) as exc:
        print(f"build_catalog: {exc}", file=sys.stderr)
        return 2
    atomic_write_text(args.out / "catalog.csv", write_catalog_csv(result.offers))
    atomic_write_text(args.out / "catalog_cleaning.csv", write_cleaning_log(result.actions))
    counts = Counter((a.rule, a.action) for a in result.actions)
    print(f"{len(result.offers)} offers written to {args.out / 'catalog.csv'}")
    added = sum(1 for o in result.offers if o.source.startswith(f"gpufleet {OVERRIDES}/"))
    print(f"  of which {added} from gpufleet's own rows ({args.overrides})")
    for (rule, action), n in sorted(counts.items()):
        print(f"  {rule:<26} {action:<18} {n:>5} rows")
    print(f"per-row log: {args.out / 'catalog_cleaning.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

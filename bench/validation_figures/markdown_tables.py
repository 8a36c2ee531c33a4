"""docs/validation.md's per-size tables from `topocoll validate --json` files: one table per
collective (its rows from every file given), then the summary over all files (verdicts by
topocoll.validation's rules). With --machine, the calibrated machine file's rates by working
set first.

    python bench/validation_figures/markdown_tables.py docs/validation/vm2-*.json
    python bench/validation_figures/markdown_tables.py --machine docs/validation/vm2-machine.json
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from topocoll import validation
from topocoll.units import format_bytes, parse_bytes, parse_rate

# The working-set table's columns: (heading, the machine file's key)
WORKING_SET_COLUMNS = (
    ("ping-pong (fabric)", "fabric_bandwidth"),
    ("node memory", "memory_bandwidth"),
    ("copy", "copy_rate"),
    ("reduction (`int`)", "reduce_rate"),
    ("copy into lent bytes", "lent_copy_rate"),
    ("reduction into lent bytes", "lent_reduce_rate"),
)


def working_set_table(machine: dict) -> list[str]:
    """The machine file's `working_set` points as a table of GB/s (the `int` reduction)."""
    out = [
        "| working set | " + " | ".join(h for h, _ in WORKING_SET_COLUMNS) + " |",
        "| ---: |" + " ---: |" * len(WORKING_SET_COLUMNS),
    ]
    for point in machine["working_set"]["value"]:
        cells = []
        for _, key in WORKING_SET_COLUMNS:
            value = point.get(key)
            value = value.get("int") if isinstance(value, dict) else value
            cells.append("-" if value is None else f"{parse_rate(value) / 1e9:.3g} GB/s")
        size = format_bytes(parse_bytes(point["bytes"])).replace(".00", "")
        out.append(f"| {size} | " + " | ".join(cells) + " |")
    return out + [""]


def table(collective: str, ranks: int, rows: list[validation.Row]) -> list[str]:
    verdicts = {v.size_bytes: v for v in validation.size_verdicts(rows)}
    out = [
        f"#### {collective}, {ranks} ranks",
        "",
        "| size | algorithms | samples | median error | median \\|error\\| | predicted best "
        "| measured best | meas(pred best) / meas best | within 10% | tau-b |",
        "| ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | :---: | ---: |",
    ]
    for size in sorted(verdicts):
        v = verdicts[size]
        errors = [r.error for r in rows if r.size_bytes == size and r.error is not None]
        counts = [len(r.samples_s) for r in rows if r.size_bytes == size]
        fewest, most = min(counts), max(counts)
        samples = str(most) if fewest == most else f"{fewest}-{most}"
        tied = v.predicted_best.split("=")
        best = tied[0] + (f" (tied with {len(tied) - 1})" if len(tied) > 1 else "")
        tau = "" if v.kendall_tau is None else f"{v.kendall_tau:.2f}"
        out.append(
            f"| {format_bytes(size)} | {v.algorithms} | {samples} "
            f"| {100 * statistics.median(errors):+.0f}% "
            f"| {100 * statistics.median(abs(e) for e in errors):.0f}% | {best} "
            f"| {v.measured_best} | {v.predicted_best_measured_s / v.measured_best_s:.2f} "
            f"| {'yes' if v.best_within_10pct else 'no'} | {tau} |"
        )
    s = validation.summarize(rows, list(verdicts.values()))
    out += [
        "",
        f"{collective}: median |error| {100 * s['median_abs_error']:.0f}%, best within 10% at "
        f"{s['sizes_best_within_10pct']} of {s['sizes']} sizes",
        "",
    ]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--machine", type=Path, help="a machine file topocoll calibrate wrote")
    args = parser.parse_args()
    if args.machine:
        print("\n".join(working_set_table(json.loads(args.machine.read_text()))))
    if not args.files:
        return
    every: list[validation.Row] = []
    ranks: dict[str, int] = {}
    for path in args.files:
        document = json.loads(path.read_text())
        rows = validation.saved_rows(document)
        every += rows
        ranks |= {r.collective: document["ranks"] for r in rows}
    lines: list[str] = []
    # One table per collective, whether a file holds several or a collective's sizes span files.
    for collective, count in ranks.items():
        lines += table(collective, count, [r for r in every if r.collective == collective])
    s = validation.summarize(every, validation.size_verdicts(every))
    print("\n".join(lines))
    print(
        f"All files: {s['rows']} rows, median |error| {100 * s['median_abs_error']:.1f}%, "
        f"predicted best within 10% at {s['sizes_best_within_10pct']} of {s['sizes']} sizes, "
        f"median tau-b {s['median_kendall_tau']:.2f}"
    )


if __name__ == "__main__":
    main()

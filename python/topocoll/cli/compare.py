"""`topocoll compare`: every algorithm of a collective over a range of sizes on one network, as a
table, CSV or JSON, and a plot."""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from topocoll.cli.common import (
    add_network_arguments,
    network_options,
    progress_bar,
    schedule_violation,
    setup_from,
    writable,
    write_output,
)
from topocoll.comparison import Comparison, compare
from topocoll.errors import InputError, require
from topocoll.formats.schedule_files import read_schedule_file
from topocoll.parallel import MAX_JOBS
from topocoll.plots import plot_comparison
from topocoll.simulation import origin
from topocoll.units import format_bytes, format_duration

DEFAULT_SIZES = "32B:512MiB"


def register(sub) -> None:
    p = sub.add_parser("compare", help="simulate every algorithm over a range of sizes")
    add_network_arguments(p, defaults=True)
    p.add_argument(
        "--algorithms", default="all", help="A,B,... or all (default); none: the --schedule files"
    )
    p.add_argument(
        "--schedule",
        action="append",
        default=[],
        help="a schedule file (JSON or MSCCL XML) run beside the algorithms; repeatable",
    )
    p.add_argument(
        "--sizes", default=DEFAULT_SIZES, help="LOW:HIGH (powers of two) or A,B,... (bytes)"
    )
    p.add_argument("--format", default="table", help="table (default), csv, json")
    p.add_argument("--plot", help="write goodput vs size to this PNG file")
    p.add_argument("--jobs", "-j", type=int, default=1, help="local processes (default 1)")
    p.set_defaults(run=run)


def run_compare(args: argparse.Namespace, schedules: Sequence[str] = ()) -> Comparison | None:
    if not 1 <= args.jobs <= MAX_JOBS:
        raise InputError(f"--jobs {args.jobs} out of range; accepted: 1..{MAX_JOBS}")
    setup_from(args)  # validates before the pool starts
    options = network_options(args)
    bar = progress_bar(f"simulating on {args.topology}", args)
    with bar or contextlib.nullcontext():
        task = bar.add_task("runs", total=None) if bar else None
        return compare(
            args.topology,
            args.collective,
            algorithms=args.algorithms,
            sizes=args.sizes,
            jobs=args.jobs,
            progress=(lambda done, total: bar.update(task, completed=done, total=total))
            if bar
            else None,
            force=args.force,
            schedules=schedules,
            **options,
        )


# How the table labels each algorithm row's origin (simulation.origin).
ORIGIN_LABELS = {
    "paper": "paper",
    "variant": "topocoll variant",
    "baseline": "baseline",
    "file": "file",
    "composition": "composition (hier:/leader:)",
}


def print_table(c: Comparison) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=140)
    table = Table(
        title=f"{c.collective} on {c.topology} ({c.ranks} ranks"
        + (f", {c.ranks_per_node} per node" if c.ranks_per_node > 1 else "")
        + f", {c.model} model, {c.routing} "
        f"routing): goodput per size; * the best; peak {c.peak_goodput_gbps:.1f} Gb/s"
    )
    for column in ("size", "algorithm", "kind", "time", "goodput Gb/s", "% peak", "best"):
        table.add_column(column, justify="left" if column in ("algorithm", "kind") else "right")
    by_size: dict[int, list] = {}
    for e in c.entries:
        by_size.setdefault(e.size_bytes, []).append(e)
    for size, entries in by_size.items():
        for n, e in enumerate(entries):
            kind = ORIGIN_LABELS.get(e.origin, e.origin) if e.kind == "algorithm" else "best-of"
            name = e.algorithm + (f" = {e.chosen}" if e.chosen else "")
            table.add_row(
                format_bytes(size) if n == 0 else "",
                name,
                kind,
                format_duration(e.time_s),
                f"{e.goodput_gbps:.3f}",
                f"{e.peak_percent:.1f}",
                "*" if e.best else "",
                end_section=n == len(entries) - 1,
                style="dim" if e.kind == "best-of" else None,
            )
    console.print(table)
    summary = Table(
        title="best per size: of the papers' algorithms, of topocoll's own variants (not in the "
        "papers) and of the baselines; gain = goodput of the best paper algorithm / best baseline"
    )
    columns = ("size", "best", "time", "goodput Gb/s", "best paper algorithm")
    columns += ("best topocoll variant", "best baseline", "gain")
    for column in columns:
        summary.add_column(column, justify="left" if "best" in column else "right")
    for s in c.summary:
        summary.add_row(
            format_bytes(s.size_bytes),
            f"{s.best} ({ORIGIN_LABELS[origin(s.best)]})",
            format_duration(s.best_time_s),
            f"{s.best_goodput_gbps:.3f}",
            s.best_paper or "-",
            s.best_variant or "-",
            s.best_baseline or "-",
            f"{s.gain:.2f}x" if s.gain is not None else "-",
        )
    console.print(summary)


def run(args: argparse.Namespace) -> int:
    if args.format not in ("table", "csv", "json"):
        raise InputError(f"unknown --format '{args.format}'; accepted: table, csv, json")
    writable(args.plot, "--plot", setup_from(args))
    if args.plot:  # before the runs, which may take minutes
        require("matplotlib", "compare --plot")
    for path in args.schedule:  # a wrong schedule's time means nothing (it may beat the bound)
        violation = schedule_violation(read_schedule_file(path), args.force)
        if violation is not None:
            print(f"FAIL {path}: {violation} (the schedule `verify` rejects is not compared)")
            return 1
    result = run_compare(args, args.schedule)
    if result is None:  # an MPI rank other than 0: rank 0 prints
        return 0
    if result.skipped:
        print(
            f"skipped {len(result.skipped)} algorithms that do not fit {result.topology} "
            f"(ranks {result.ranks}): {', '.join(result.skipped)}",
            file=sys.stderr,
        )
        for name, reason in result.skipped.items():
            print(f"  {name}: {reason}", file=sys.stderr)
    if result.skipped_sizes:
        sizes = ", ".join(format_bytes(s) for s in result.skipped_sizes)
        print(f"skipped sizes below P = {result.ranks} bytes: {sizes}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps(result.to_dict()))
    elif args.format == "csv":
        rows = result.rows()
        writer = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    else:
        print_table(result)
    if args.plot:
        write_output(args.plot, "--plot", lambda path: plot_comparison(result, path))
        where = Path(args.plot).resolve()
        print(f"plot written to {where}", file=sys.stderr if args.format != "table" else None)
    return 0

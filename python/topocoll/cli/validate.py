"""`topocoll validate`: the simulator's predictions beside the MPI runtime's measurements
(docs/validation.md). Run under mpirun/mpiexec with 2 or more ranks; rank 0 prints."""

from __future__ import annotations

import argparse
import json
import sys

from topocoll import calibration, validation
from topocoll.cli.common import EXIT_INPUT, EXIT_OK, EXIT_WRONG, bounded_float, bounded_int
from topocoll.errors import one_line
from topocoll.units import format_bytes, format_duration


def register(sub) -> None:
    p = sub.add_parser(
        "validate",
        help="predict with the simulator and measure with the MPI runtime (under mpirun)",
    )
    p.add_argument("--machine", required=True, help="a machine file (topocoll calibrate)")
    p.add_argument(
        "--collectives",
        default=",".join(validation.DEFAULT_COLLECTIVES),
        help="comma-separated, of " + ", ".join(validation.RUNTIME_COLLECTIVES),
    )
    p.add_argument(
        "--sizes",
        default=validation.DEFAULT_SIZES,
        help="LOW:HIGH (LOW times powers of 4, and HIGH) or A,B,... (bytes)",
    )
    p.add_argument("--algorithms", help="comma-separated registry names (default: all)")
    p.add_argument(
        "--repetitions",
        type=bounded_int("repetitions", 1, 1000),
        default=10,
        help="samples per algorithm and size, each the median of 3 timed calls (the median of "
        "the samples kept); with --max-repetitions, the least; default 10",
    )
    p.add_argument(
        "--max-repetitions",
        type=bounded_int("max-repetitions", 1, 10000),
        help="take more rounds of a size, up to this many samples, while a row's median has a "
        "95%% interval wider than --precision (default: --repetitions, a fixed count)",
    )
    p.add_argument(
        "--precision",
        type=bounded_float("precision", 0.001, 0.5),
        default=validation.DEFAULT_PRECISION,
        help="half a median's 95%% interval over the median, which every row of a size must "
        f"reach to end its rounds (default {validation.DEFAULT_PRECISION:g})",
    )
    p.add_argument(
        "--warmup",
        type=bounded_int("warmup", 0, 100),
        default=1,
        help="untimed calls before each timed one; default 1",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--max-seconds",
        type=bounded_float("max-seconds", 1e-6, 1e7),
        default=600.0,
        help="refuse a run estimated longer than this (default 600)",
    )
    p.add_argument("--force", action="store_true", help="run even beyond --max-seconds")
    p.add_argument("--progress", action="store_true", help="a line on stderr per size")
    p.set_defaults(run=run)


def fail(line: str, rank: int) -> int:
    if rank == 0:
        print(f"error: validate: {one_line(line)}", file=sys.stderr)
    return EXIT_INPUT


def comma_names(text: str | None) -> list[str] | None:
    """The comma-separated names, each once, in the order given."""
    if not text:
        return None
    return list(dict.fromkeys(w.strip() for w in text.split(",") if w.strip()))


def _samples(v: validation.Validation) -> str:
    if v.max_repetitions <= v.repetitions:
        return str(v.repetitions)
    return f"{v.repetitions} to {v.max_repetitions} (until +/-{v.precision:.1%} at 95%)"


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:+.1%}"


def print_tables(v: validation.Validation) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=140)
    verdicts = {(s.collective, s.size_bytes): s for s in v.verdicts}
    table = Table(
        title=f"{v.machine} ({v.topology}, {v.ranks} ranks): predicted and "
        f"measured median of {_samples(v)}; error = (pred - meas) / meas; P best predicted, "
        "M best measured"
    )
    for column in ("collective", "size", "algorithm", "predicted", "measured", "error", "best"):
        left = column in ("collective", "algorithm")
        table.add_column(column, justify="left" if left else "right")
    groups: dict[tuple[str, int], list[validation.Row]] = {}
    for row in v.rows:
        groups.setdefault((row.collective, row.size_bytes), []).append(row)
    for key, rows in groups.items():
        verdict = verdicts[key]
        for n, row in enumerate(sorted(rows, key=lambda r: r.measured_s)):
            marks = ("P" if row.algorithm == verdict.predicted_best else "") + (
                "M" if row.algorithm == verdict.measured_best else ""
            )
            table.add_row(
                row.collective if n == 0 else "",
                format_bytes(row.size_bytes) if n == 0 else "",
                row.algorithm,
                format_duration(row.predicted_s),
                format_duration(row.measured_s),
                _ratio(row.error),
                marks,
                end_section=n == len(rows) - 1,
            )
    console.print(table)
    sizes = Table(title="per size: is the predicted best within 10% of the measured best; tau-b")
    for column in (
        "collective",
        "size",
        "predicted best",
        "measured best",
        "ratio",
        "within",
        "tau",
    ):
        sizes.add_column(column, justify="left" if "best" in column else "right")
    for s in v.verdicts:
        sizes.add_row(
            s.collective,
            format_bytes(s.size_bytes),
            s.predicted_best,
            s.measured_best,
            f"{s.predicted_best_measured_s / s.measured_best_s:.2f}",
            "yes" if s.best_within_10pct else "no",
            "-" if s.kendall_tau is None else f"{s.kendall_tau:.2f}",
        )
    console.print(sizes)
    m = v.summary
    error = "-" if m["median_abs_error"] is None else f"{m['median_abs_error']:.1%}"
    tau = "-" if m["median_kendall_tau"] is None else f"{m['median_kendall_tau']:.2f}"
    console.print(
        f"median |error| {error} over {m['rows']} runs; predicted best within 10% at "
        f"{m['sizes_best_within_10pct']} of {m['sizes']} sizes; median tau {tau}; "
        f"{len(v.skipped)} skipped; {v.elapsed_s:.0f} s (estimated {v.estimate_s:.0f} s)",
        highlight=False,
    )
    for (collective, algorithm, reason), sizes in skipped_groups(v.skipped).items():
        console.print(
            f"skipped {collective} {algorithm} at {', '.join(map(format_bytes, sizes))}: {reason}",
            highlight=False,
        )


def skipped_groups(skipped: list[dict]) -> dict[tuple[str, str, str], list[int]]:
    """The sizes of each (collective, algorithm, reason): one line each."""
    groups: dict[tuple[str, str, str], list[int]] = {}
    for skip in skipped:
        key = (skip["collective"], skip["algorithm"], skip["reason"])
        groups.setdefault(key, []).append(skip["size_bytes"])
    return groups


def run(args: argparse.Namespace) -> int:
    try:
        comm = calibration.world()
    except calibration.CalibrationError as error:
        return fail(str(error), 0)
    rank = comm.Get_rank()
    progress = None
    if args.progress and rank == 0:
        progress = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    try:
        collectives = comma_names(args.collectives) or []
        sizes = validation.size_range(args.sizes)
        result = validation.validate(
            comm,
            args.machine,
            collectives=collectives,
            sizes=sizes,
            algorithms=comma_names(args.algorithms),
            repetitions=args.repetitions,
            max_repetitions=args.max_repetitions,
            precision=args.precision,
            warmup=args.warmup,
            max_seconds=args.max_seconds,
            force=args.force,
            progress=progress,
        )
    except (ValueError, calibration.CalibrationError) as error:
        return fail(str(error), rank)
    if rank == 0:
        if args.json:
            print(json.dumps(result.to_dict(), indent=2))
        else:
            print_tables(result)
        for line in result.wrong:
            print(f"error: validate: wrong result: {line}", file=sys.stderr)
    return EXIT_WRONG if result.wrong else EXIT_OK

"""Schedule efficiency: every algorithm's zero-latency, large-vector time against its bound.

For each algorithm of a collective and each shape (rings and tori of several kinds), runs the
flow model with no latency, no per-step overhead and a 1 GiB vector, so that only bandwidth
counts, and prints the collective's bandwidth bound divided by the time (the "% of peak" of
`topocoll sim`): 100% is a schedule that moves its data at the bound. Next to it, in
parentheses, the closed form of topocoll.closed_forms: the paper's (no suffix) or the one
derived from the schedule's own steps (suffix `d`; `n/e`: not evaluated, above
--max-derived-ranks); `*` marks a cell where the two differ by more than --threshold percent
(of the closed form). docs/efficiency.md holds the tables, the
derivations and the explanation of every such deviation.

    .venv/bin/python bench/efficiency.py [--collective allreduce] [--jobs 2] [--quick]
                                         [--only NAME,NAME,...] [--deviations]
                                         [--threshold 3] [--no-closed-forms] [--save FILE]
                                         [--max-derived-ranks 300]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from topocoll import closed_forms

TOPOCOLL = str(Path(sys.executable).with_name("topocoll"))

# Even, odd, powers of two and three; square and rectangular 2D tori; 3D and 4D tori.
RINGS = [
    "ring:8", "ring:10", "ring:26", "ring:27", "ring:28", "ring:30", "ring:31", "ring:32",
    "ring:64", "ring:81",
]  # fmt: skip
RINGS_FULL = RINGS + ["ring:243", "ring:256", "ring:1024"]
TORI = [
    "torus:8x8", "torus:9x9", "torus:10x10", "torus:14x14", "torus:14x16", "torus:15x15",
    "torus:16x4", "torus:32x8", "torus:4x4x4",
]  # fmt: skip
TORI_FULL = TORI + ["torus:27x27", "torus:28x28", "torus:32x32", "torus:64x16", "torus:4x4x4x4"]


def algorithms(collective: str) -> list[dict]:
    out = subprocess.run(
        [TOPOCOLL, "algorithms", "--collective", collective, "--json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)


def efficiency(topology: str, collective: str, algorithm: str) -> float | None:
    """The flow model's % of peak, or None where the algorithm does not accept the shape."""
    run = subprocess.run(
        [
            TOPOCOLL, "sim", "--topology", topology, "--collective", collective,
            "--algorithm", algorithm, "--size", "1GiB", "--latency", "0ns",
            "--hop-latency", "0ns", "--alpha", "0ns", "--json",
        ],
        capture_output=True,
        text=True,
    )  # fmt: skip
    if run.returncode != 0:
        return None  # the algorithm does not accept this shape (exit 2) or failed
    return json.loads(run.stdout)["peak_percent"]


def closed_form(
    algorithm: str, collective: str, topology: str, max_derived_ranks: int = 0
) -> tuple[float | None, str]:
    """(% of peak, "paper" | "derived" | "skipped" | "-") from topocoll.closed_forms."""
    form = closed_forms.expected(algorithm, collective, topology, max_derived_ranks)
    return form.percent, form.kind


def deviation(measured: float | None, expected: float | None) -> float | None:
    """(measured - closed form) / closed form, in percent."""
    if measured is None or expected is None or expected == 0:
        return None
    return 100.0 * (measured - expected) / expected


def cell(measured: float | None, expected: float | None, kind: str, threshold: float) -> str:
    if measured is None:
        return "-"
    text = f"{measured:.1f}"
    if kind == "none":
        return text
    if expected is None:
        return f"{text} (" + ("n/e" if kind == "skipped" else "-") + ")"
    suffix = "d" if kind == "derived" else ""
    dev = deviation(measured, expected)
    mark = "*" if dev is not None and abs(dev) > threshold else ""
    return f"{text} ({expected:.1f}{suffix}){mark}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collective", default="allreduce")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="the smaller shapes only")
    parser.add_argument("--only", help="comma-separated algorithm names (default: all)")
    parser.add_argument(
        "--deviations",
        action="store_true",
        help="print only the cells whose measured value differs from the closed form by more "
        "than --threshold percent",
    )
    parser.add_argument("--threshold", type=float, default=3.0, help="percent (default 3)")
    parser.add_argument(
        "--no-closed-forms", action="store_true", help="the measured %% of peak only"
    )
    parser.add_argument("--save", help="also write every cell as JSON to this file")
    parser.add_argument(
        "--max-derived-ranks",
        type=int,
        default=300,
        help="evaluate derived closed forms up to this many ranks (0: all; default 300: "
        "above, the Python sum over the schedule's messages takes many minutes per cell; "
        "such cells print 'n/e')",
    )
    args = parser.parse_args()
    if args.deviations and args.no_closed_forms:
        parser.error("--deviations needs the closed forms")
    try:
        closed_forms.check_rank_limit(args.max_derived_ranks)
    except ValueError as error:
        parser.error(str(error))
    shapes = (RINGS + TORI) if args.quick else (RINGS_FULL + TORI_FULL)
    names = [a["name"] for a in algorithms(args.collective)]
    if args.only:
        wanted = args.only.split(",")
        unknown = sorted(set(wanted) - set(names))
        if unknown:
            parser.error(f"--only: unknown for {args.collective}: {', '.join(unknown)}")
        names = [n for n in names if n in wanted]
    cells = [(n, s) for n in names for s in shapes]
    began = time.monotonic()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        values = list(pool.map(lambda c: efficiency(c[1], args.collective, c[0]), cells))
    measured = dict(zip(cells, values, strict=True))
    simulated_s = time.monotonic() - began
    # The closed forms run after the simulations, so the machine never has more than --jobs
    # busy processes.
    forms: dict[tuple[str, str], tuple[float | None, str]] = {}
    for c in cells:
        if args.no_closed_forms or measured[c] is None:
            forms[c] = (None, "none" if args.no_closed_forms else "-")
        else:
            forms[c] = closed_form(c[0], args.collective, c[1], args.max_derived_ranks)
    total_s = time.monotonic() - began
    if args.save:
        rows = [
            {
                "algorithm": n, "shape": s, "measured": measured[(n, s)],
                "closed_form": forms[(n, s)][0], "kind": forms[(n, s)][1],
                "deviation_percent": deviation(measured[(n, s)], forms[(n, s)][0]),
            }
            for n, s in cells
        ]  # fmt: skip
        Path(args.save).write_text(json.dumps(rows, indent=1) + "\n")
    if args.deviations:
        print(
            f"Deviations above {args.threshold:g}% between the flow model and the closed form, "
            f"{args.collective}, 1 GiB, zero latency"
        )
        print("| algorithm | shape | measured | closed form | kind | deviation |")
        print("| --- | --- | --- | --- | --- | --- |")
        for n, s in cells:
            value, kind = forms[(n, s)]
            dev = deviation(measured[(n, s)], value)
            if dev is not None and abs(dev) > args.threshold:
                got = measured[(n, s)]
                print(f"| {n} | {s} | {got:.1f} | {value:.1f} | {kind} | {dev:+.1f}% |")
    else:
        title = f"% of peak, {args.collective}, flow model, 1 GiB, zero latency ('-': not accepted)"
        if not args.no_closed_forms:
            title = (
                f"% of peak, {args.collective}, flow model (closed form; d: derived from the "
                f"schedule's steps; n/e: not evaluated; *: differs by more than "
                f"{args.threshold:g}%), 1 GiB, zero "
                "latency ('-': not accepted)"
            )
        print(title)
        print("| algorithm | " + " | ".join(s.split(":")[1] for s in shapes) + " |")
        print("| --- |" + " --- |" * len(shapes))
        for n in names:
            row = [cell(measured[(n, s)], *forms[(n, s)], args.threshold) for s in shapes]
            print(f"| {n} | " + " | ".join(row) + " |")
    print(
        f"({len(cells)} cells: {simulated_s:.0f} s of simulation with {args.jobs} jobs, "
        f"{total_s - simulated_s:.0f} s of closed forms)",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

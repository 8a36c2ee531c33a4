"""Allreduce on MPI ranks: every topocoll algorithm against Open MPI's own ring, recursive
doubling and Rabenseifner (forced through coll_tuned), with topocoll-bench.

One mpirun per rank count and message size (so that large messages can run fewer iterations);
all algorithms of one size run in the same mpirun, on the same ranks, interleaved call by call
(`--interleave`) so that load changes on a shared machine hit them alike. A second series times
only the pairs of the same algorithm (topocoll's and Open MPI's) from 64 KiB, with more
iterations, and compares them by the fastest and the median iteration. Writes the generated
section of docs/mpi-benchmark.md (between the BEGIN/END GENERATED markers, keeping the prose
around it) and prints it.

    .venv/bin/python bench/mpi_figures/run_comparison.py --ranks 2,4 --output docs/mpi-benchmark.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

TOPOCOLL = [
    "ring",
    "recdoub-lat",
    "recdoub-bw",
    "recdoub-bw-distance-halving",
    "swing-lat",
    "swing-bw",
    "bine-lat",
    "bine-bw",
    "bucket",
    "trivance-lat",
    "trivance-bw",
    "bruck-lat",
    "bruck-bw",
]
OPEN_MPI = ["mpi", "ompi-ring", "ompi-recdoub", "ompi-rabenseifner"]
# The same algorithm on both sides: topocoll's schedule against Open MPI's hand-written one.
PAIRS = [
    ("ring", "ompi-ring"),
    ("recdoub-lat", "ompi-recdoub"),
    ("recdoub-bw", "ompi-rabenseifner"),
]
BEGIN, END = "<!-- BEGIN GENERATED -->", "<!-- END GENERATED -->"
KIB = 1024


def iterations(size: int, scale: int = 1) -> tuple[int, int]:
    """(measured, warm-up) iterations: fewer for large messages, which take longest."""
    if size <= 64 * KIB:
        return 40 * scale, 5
    if size <= KIB * KIB:
        return 20 * scale, 3
    if size <= 8 * KIB * KIB:
        return 10 * scale, 2
    return 5 * scale, 1


def human(size: int) -> str:
    for unit, factor in (("MiB", KIB * KIB), ("KiB", KIB)):
        if size >= factor:
            return f"{size // factor} {unit}"
    return f"{size} B"


def mpirun(ranks: int) -> list[str]:
    if ranks <= (os.cpu_count() or 1):
        # A logical CPU per rank (os.cpu_count() counts them, so slots are hardware threads):
        # bound and busy-polling, as MPI runs in production.
        command = ["mpirun", "--use-hwthread-cpus", "--bind-to", "hwthread:if-supported"]
        command += ["--map-by", "hwthread", "-np", str(ranks)]
    else:
        # Oversubscribed ranks must yield the core while they wait, or a busy-polling rank
        # starves the one it waits for (300 ms instead of 0.4 ms per 64 KiB allreduce on 2 cores).
        command = ["mpirun", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]
        command += ["-np", str(ranks)]
    if os.geteuid() == 0:
        command.insert(1, "--allow-run-as-root")
    return command


def run_size(bench: str, ranks: int, size: int, algorithms: list[str], scale: int = 1) -> dict:
    n, w = iterations(size, scale)
    command = mpirun(ranks) + [bench, "-b", str(size), "-e", str(size), "-n", str(n), "-w", str(w)]
    command += [
        "-d",
        "float",
        "-o",
        "sum",
        "-c",
        "1",
        "--json",
        "--interleave",
        "--algorithm",
        ",".join(algorithms),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"error: {shlex.join(command)} exited {done.returncode}: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def cell(row: dict | None) -> str:
    return "—" if row is None else f"{row['time_median_us']:.1f}"


def table(results: dict, sizes: list[int], algorithms: list[str]) -> list[str]:
    lines = ["| size | " + " | ".join(algorithms) + " |", "|---" * (len(algorithms) + 1) + "|"]
    for size in sizes:
        rows = results[size]
        lines.append(
            f"| {human(size)} | " + " | ".join(cell(rows.get(a)) for a in algorithms) + " |"
        )
    return lines


def pair_table(results: dict, sizes: list[int]) -> tuple[list[str], list[float]]:
    """Per pair: topocoll's and Open MPI's fastest iteration, their ratio, and the ratio of the
    medians. Returns the lines and the ratios of the fastest iterations."""
    head = "| size | " + " | ".join(
        f"{a} / {b}: fastest (µs) | ratio | median ratio" for a, b in PAIRS
    )
    lines = [head + " |", "|---" * (3 * len(PAIRS) + 1) + "|"]
    ratios = []
    for size in sizes:
        rows = results[size]
        cells = []
        for a, b in PAIRS:
            ours, theirs = rows.get(a), rows.get(b)
            if ours is None or theirs is None:
                cells += ["—", "—", "—"]
                continue
            ratio = ours["time_min_us"] / theirs["time_min_us"]
            median = ours["time_median_us"] / theirs["time_median_us"]
            ratios.append(ratio)
            cells += [
                f"{ours['time_min_us']:.0f} / {theirs['time_min_us']:.0f}",
                f"{ratio:.2f}",
                f"{median:.2f}",
            ]
        lines.append(f"| {human(size)} | " + " | ".join(cells) + " |")
    return lines, ratios


def generate(args: argparse.Namespace) -> str:
    algorithms = TOPOCOLL + OPEN_MPI
    sizes = [args.min_bytes]
    while sizes[-1] * args.factor <= args.max_bytes:
        sizes.append(sizes[-1] * args.factor)
    if sizes[-1] != args.max_bytes:
        sizes.append(args.max_bytes)  # the range always ends at --max-bytes
    version = subprocess.run(["mpirun", "--version"], capture_output=True, text=True).stdout
    started = time.time()
    out = [
        BEGIN,
        "",
        f"Produced by `{args.command}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: "
        f"{os.cpu_count()} cores ({platform.processor() or platform.machine()}), "
        f"{version.splitlines()[0] if version else 'unknown MPI'}, float sum, every call "
        "validated (`-c 1`). Cells: median over the measured iterations of the slowest rank's "
        "time, in microseconds (topocoll-bench's `time(us)` column is the mean; `--json` gives "
        "both). `—`: not run (the algorithm refused the rank count).",
        "",
    ]
    wrong = 0
    for ranks in args.ranks:
        results = {}
        for size in sizes:
            doc = run_size(args.bench, ranks, size, algorithms)
            wrong += doc["wrong"]
            results[size] = {r["algorithm"]: r for r in doc["results"]}
            print(f"P={ranks} {human(size)} done ({time.time() - started:.0f} s)", file=sys.stderr)
        over = "oversubscribed, " if ranks > (os.cpu_count() or 1) else ""
        out += [f"### {ranks} ranks on {os.cpu_count()} cores ({over}time in µs)", ""]
        out += table(results, sizes, algorithms) + [""]
        pair_sizes = [64 * KIB]
        while pair_sizes[-1] * 4 <= args.max_bytes:
            pair_sizes.append(pair_sizes[-1] * 4)
        pair_names = [name for pair in PAIRS for name in pair]
        pairs = {}
        for size in pair_sizes:
            doc = run_size(args.bench, ranks, size, pair_names, scale=2)
            wrong += doc["wrong"]
            pairs[size] = {r["algorithm"]: r for r in doc["results"]}
            print(f"P={ranks} pairs {human(size)} ({time.time() - started:.0f} s)", file=sys.stderr)
        lines, ratios = pair_table(pairs, pair_sizes)
        slower = sum(r > 1.10 for r in ratios)
        close = sum(abs(r - 1) <= 0.10 for r in ratios)
        out += [
            f"Same algorithm, topocoll / Open MPI, {ranks} ranks, 64 KiB and more (a separate "
            "interleaved series of the six, twice the iterations; ratio > 1: topocoll slower): "
            f"by the fastest iteration topocoll is more than 10% slower in {slower} of "
            f"{len(ratios)} cases and within ±10% in {close}.",
            "",
        ]
        out += lines + [""]
    out += [f"Wrong elements over all validated calls: {wrong}.", "", END]
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", default="build/cpp/topocoll-bench")
    parser.add_argument("--ranks", default="2,4", help="comma-separated rank counts")
    parser.add_argument("--min-bytes", type=int, default=8)
    parser.add_argument("--max-bytes", type=int, default=64 * KIB * KIB)
    parser.add_argument("--factor", type=int, default=4)
    parser.add_argument("--output", help="Markdown file whose generated section is replaced")
    args = parser.parse_args()
    args.command = "python bench/mpi_figures/run_comparison.py " + shlex.join(sys.argv[1:])
    args.ranks = [int(r) for r in args.ranks.split(",")]
    if not Path(args.bench).is_file():
        sys.exit(f"error: no topocoll-bench at {args.bench}; build it (make build) or pass --bench")
    text = generate(args)
    print(text)
    if args.output:
        path = Path(args.output)
        old = path.read_text() if path.is_file() else f"{BEGIN}\n{END}\n"
        pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
        path.write_text(pattern.sub(lambda _: text, old, count=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

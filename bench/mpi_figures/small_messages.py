"""Small-message cost of topocoll's runtime against Open MPI's own algorithms, interleaved.

Runs `topocoll-bench --interleave --json` for the pairs ring / ompi-ring, recdoub-lat /
ompi-recdoub and recdoub-bw / ompi-rabenseifner, `--runs` times per build, alternating the
builds run by run (so that load changes on a shared machine hit both alike), and prints per
size the median over runs of each run's fastest iteration (interference only adds time) and
its ratio to Open MPI's, per build. docs/mpi-benchmark.md ("Small messages") has a result.

    python bench/mpi_figures/small_messages.py --bench before=/tmp/before/topocoll-bench \\
        --bench after=build/cpp/topocoll-bench --ranks 2 --runs 4
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import tempfile

PAIRS = [
    ("ring", "ompi-ring"),
    ("recdoub-lat", "ompi-recdoub"),
    ("recdoub-bw", "ompi-rabenseifner"),
]


def run(bench: str, args: argparse.Namespace) -> list[dict]:
    algorithms = ",".join(a for pair in PAIRS for a in pair)
    command = [args.mpirun, "-np", str(args.ranks), "--mca", "mpi_yield_when_idle", "1"]
    command += [bench, "-b", args.min, "-e", args.max, "-f", "2", "-n", str(args.iterations)]
    command += ["-w", "20", "--interleave", "--json", "--algorithm", algorithms]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    with tempfile.TemporaryFile("w+") as out:
        subprocess.run(command, stdout=out, stderr=subprocess.DEVNULL, env=env, check=True)
        out.seek(0)
        return json.load(out)["results"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", action="append", required=True, help="NAME=PATH, repeatable")
    parser.add_argument("--mpirun", default="mpirun")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--min", default="8")
    parser.add_argument("--max", default="64K")
    args = parser.parse_args()
    builds = dict(b.split("=", 1) for b in args.bench)
    fastest: dict[str, dict[tuple[str, int], list[float]]] = {
        name: collections.defaultdict(list) for name in builds
    }
    for _ in range(args.runs):
        for name, bench in builds.items():
            for row in run(bench, args):
                fastest[name][(row["algorithm"], row["size"])].append(row["time_min_us"])
    for name, times in fastest.items():
        print(f"\n{name}: fastest iteration in us, median of {args.runs} runs (ratio to Open MPI)")
        print("| size | " + " | ".join(f"{a} / {b}" for a, b in PAIRS) + " |")
        print("|---" * (len(PAIRS) + 1) + "|")
        for size in sorted({s for _, s in times}):
            cells = []
            for ours, theirs in PAIRS:
                a = statistics.median(times[(ours, size)])
                b = statistics.median(times[(theirs, size)])
                cells.append(f"{a:.2f} / {b:.2f} ({a / b:.2f})")
            print(f"| {size} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

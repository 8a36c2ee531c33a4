"""Chooses TOPOCOLL_SEGMENT_BYTES: allreduce of topocoll's ring, recursive doubling and
recursive halving (recdoub-bw) against Open MPI's ring, recursive doubling and Rabenseifner,
for each segment size, rank count and message size.

One mpirun per (rank count, message size, segment size, round), the six algorithms interleaved
call by call (`topocoll-bench --interleave`), so that load on a shared machine hits a pair
alike; the segment sizes alternate round by round. A cell is the ratio of topocoll's time to
Open MPI's for the same algorithm (below 1: topocoll faster), the median over the rounds of
each run's median-iteration ratio (and of its fastest-iteration ratio).

    .venv/bin/python bench/mpi_figures/segment_sweep.py --ranks 2,4 --sizes 64K,1M,16M,64M \\
        --segments 0,64K,256K,1M --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

PAIRS = [
    ("ring", "ompi-ring"),
    ("recdoub-lat", "ompi-recdoub"),
    ("recdoub-bw", "ompi-rabenseifner"),
]
UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_size(text: str) -> int:
    return int(text[:-1]) * UNITS[text[-1]] if text[-1] in UNITS else int(text)


def iterations(size: int) -> int:
    return 40 if size <= 1 << 20 else 20 if size <= 4 << 20 else 8


def run(args: argparse.Namespace, ranks: int, size: str, segment: str) -> dict:
    n = iterations(parse_size(size))
    command = [
        "mpirun",
        "--oversubscribe",
        "--mca",
        "mpi_yield_when_idle",
        "1",
        "-np",
        str(ranks),
        args.bench,
        "-b",
        size,
        "-e",
        size,
        "-n",
        str(n),
        "-w",
        "2",
        "--interleave",
        "--json",
        "--algorithm",
        ",".join(a for pair in PAIRS for a in pair),
    ]
    env = dict(os.environ, TOPOCOLL_SEGMENT_BYTES=segment)
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return {r["algorithm"]: r for r in json.loads(done.stdout)["results"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", default="build/cpp/topocoll-bench")
    parser.add_argument("--ranks", default="2,4")
    parser.add_argument("--sizes", default="64K,256K,1M,4M,16M,64M")
    parser.add_argument("--segments", default="0,64K,256K,1M")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    segments = args.segments.split(",")
    header = " | ".join(f"{a} / {b}" for a, b in PAIRS)
    print(f"| ranks | size | TOPOCOLL_SEGMENT_BYTES | {header} |")
    print("|---|---|---|" + "---|" * len(PAIRS))
    for ranks in (int(r) for r in args.ranks.split(",")):
        for size in args.sizes.split(","):
            ratios: dict[str, dict[str, list[tuple[float, float]]]] = {
                s: {a: [] for a, _ in PAIRS} for s in segments
            }
            for _ in range(args.rounds):
                for segment in segments:
                    rows = run(args, ranks, size, segment)
                    for ours, theirs in PAIRS:
                        a, b = rows[ours], rows[theirs]
                        if a["wrong"] or b["wrong"]:
                            print(f"wrong elements: {ours} {size}", file=sys.stderr)
                            return 1
                        ratios[segment][ours].append(
                            (
                                a["time_median_us"] / b["time_median_us"],
                                a["time_min_us"] / b["time_min_us"],
                            )
                        )
            for segment in segments:
                cells = []
                for ours, _ in PAIRS:
                    median = statistics.median(m for m, _ in ratios[segment][ours])
                    fastest = statistics.median(f for _, f in ratios[segment][ours])
                    cells.append(f"{median:.2f} ({fastest:.2f})")
                print(f"| {ranks} | {size} | {segment} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

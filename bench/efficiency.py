"""Schedule efficiency: every algorithm's zero-latency, large-vector time against its bound.

For each algorithm of a collective and each shape (rings and tori of several kinds), runs the
flow model with no latency, no per-step overhead and a 1 GiB vector, so that only bandwidth
counts, and prints the collective's bandwidth bound divided by the time (the "% of peak" of
`topocoll sim`): 100% is a schedule that moves its data at the bound. docs/efficiency.md
holds the table and the explanations of the deviations.

    .venv/bin/python bench/efficiency.py [--collective allreduce] [--jobs 2] [--quick]
                                         [--only NAME,NAME,...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

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


def efficiency(topology: str, collective: str, algorithm: str) -> str:
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
        return "-"  # the algorithm does not accept this shape (exit 2) or failed
    return f"{json.loads(run.stdout)['peak_percent']:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collective", default="allreduce")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="the smaller shapes only")
    parser.add_argument("--only", help="comma-separated algorithm names (default: all)")
    args = parser.parse_args()
    shapes = (RINGS + TORI) if args.quick else (RINGS_FULL + TORI_FULL)
    names = [a["name"] for a in algorithms(args.collective)]
    if args.only:
        wanted = args.only.split(",")
        unknown = sorted(set(wanted) - set(names))
        if unknown:
            parser.error(f"--only: unknown for {args.collective}: {', '.join(unknown)}")
        names = [n for n in names if n in wanted]
    cells = [(n, s) for n in names for s in shapes]
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        values = list(pool.map(lambda c: efficiency(c[1], args.collective, c[0]), cells))
    table = dict(zip(cells, values, strict=True))
    print(f"% of peak, {args.collective}, flow model, 1 GiB, zero latency ('-': not accepted)")
    print("| algorithm | " + " | ".join(s.split(":")[1] for s in shapes) + " |")
    print("| --- |" + " --- |" * len(shapes))
    for n in names:
        print(f"| {n} | " + " | ".join(table[(n, s)] for s in shapes) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

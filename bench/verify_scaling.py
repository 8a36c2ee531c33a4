"""Generation plus fingerprint verification time per algorithm and rank count.

Schedules are generated lazily inside the verifier, so the verify time includes generation.
Writes a Markdown table (with the command that produced it) to --output, and prints it.

    .venv/bin/python bench/verify_scaling.py --output docs/verification-benchmark.md
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import topocoll

DEFAULT_ALGORITHMS = [
    "recdoub-lat",
    "recdoub-bw",
    "swing-lat",
    "swing-bw",
    "bine-lat",
    "bine-bw",
    "trivance-lat",
    "trivance-bw",
    "bruck-lat",
    "bruck-bw",
]
DEFAULT_SHAPES = ["1024", "4096", "16384", "64x64", "128x128"]


def shape_of(text: str) -> list[int]:
    return [int(x) for x in text.split("x")]


def measure(algorithm: str, collective: str, shape: list[int]) -> tuple[str, float, float, dict]:
    ranks = 1
    for d in shape:
        ranks *= d
    dims = shape if len(shape) > 1 else []
    start = time.perf_counter()
    try:
        schedule = topocoll.build(algorithm, collective, ranks, dims)
    except ValueError as unsupported:
        return f"unsupported: {unsupported}", 0.0, 0.0, {}
    built = time.perf_counter() - start
    start = time.perf_counter()
    report = topocoll.verify(schedule, "fingerprint")
    verified = time.perf_counter() - start
    status = "OK" if report["ok"] else f"FAIL: {report['message']}"
    return status, built, verified, report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--algorithms", default=",".join(DEFAULT_ALGORITHMS))
    parser.add_argument("--shapes", default=",".join(DEFAULT_SHAPES))
    parser.add_argument("--collective", default="allreduce")
    parser.add_argument("--output", help="Markdown file to write")
    args = parser.parse_args()
    known = {a["name"] for a in topocoll.algorithms()}
    rows = []
    failed = False
    for algorithm in args.algorithms.split(","):
        if algorithm not in known:
            print(f"skipping {algorithm}: not registered", file=sys.stderr)
            continue
        for text in args.shapes.split(","):
            status, built, verified, report = measure(algorithm, args.collective, shape_of(text))
            if status.startswith("unsupported"):
                continue
            failed |= status != "OK"
            row = (
                f"| {algorithm} | {text} | {report.get('max_steps', 0)} | "
                f"{report.get('block_transfers', 0):,} | {report.get('passes', 0)} | "
                f"{built + verified:.2f} | {status} |"
            )
            print(row, flush=True)
            rows.append(row)
    command = "python bench/verify_scaling.py " + " ".join(sys.argv[1:])
    text = "\n".join(
        [
            "# Verification benchmark: generation + fingerprint verification",
            "",
            f"Command: `{command}` (from `make bench`)",
            "",
            f"Machine: {platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()};"
            f" collective: {args.collective}.",
            "",
            "| algorithm | shape | steps | block transfers | passes | seconds | result |",
            "| --- | --- | --- | --- | --- | --- | --- |",
            *rows,
            "",
        ]
    )
    if args.output:
        with open(args.output, "w") as out:
            out.write(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Generation plus fingerprint verification time per algorithm and rank count.

Schedules are generated lazily inside the verifier, so the verify time includes generation.
Writes a Markdown table (with the command that produced it) to --output, and prints it.

    .venv/bin/python bench/verify_scaling.py --output docs/verification-benchmark.md

With --cli, each algorithm:ranks pair runs as `topocoll verify ... --mode fingerprint` under
/usr/bin/time -v instead, and the table gives CPU seconds (user + system, what a loaded machine
does not inflate) and peak resident memory, or the one line a refused run printed:

    .venv/bin/python bench/verify_scaling.py --cli recdoub-bw:65536,swing-bw:65536
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
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


def measure_isolated(
    algorithm: str, collective: str, shape: str, timeout: float
) -> tuple[str, float, float, dict]:
    """One measurement in a child process, so a run that exceeds `timeout` is reported, not
    waited for."""
    command = [sys.executable, __file__, "--one", algorithm, collective, shape]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return f"not finished after {timeout:.0f} s", timeout, 0.0, {}
    except subprocess.CalledProcessError as failure:
        return f"FAIL: child exited {failure.returncode}: {failure.stderr.strip()}", 0.0, 0.0, {}
    status, built, verified, report = json.loads(done.stdout)
    return status, built, verified, report


def time_cli(algorithm: str, ranks: str, collective: str, timeout: float) -> str:
    """One `topocoll verify` run under /usr/bin/time -v, as a Markdown table row."""
    topocoll_cli = os.path.join(os.path.dirname(sys.executable), "topocoll")
    verify = [topocoll_cli, "verify", "-c", collective, "-a", algorithm, "--ranks", ranks]
    verify += ["--mode", "fingerprint", "--json"]
    try:
        done = subprocess.run(
            ["/usr/bin/time", "-v", *verify], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return f"| {algorithm} | {ranks} | | | not finished after {timeout:.0f} s |"
    stats = {}
    for line in done.stderr.splitlines():
        key, _, value = line.strip().rpartition(": ")
        stats[key] = value
    cpu = float(stats.get("User time (seconds)", 0)) + float(stats.get("System time (seconds)", 0))
    peak = int(stats.get("Maximum resident set size (kbytes)", 0)) / 1024
    if done.returncode == 0:
        result = "OK"
    else:
        errors = [x for x in done.stderr.splitlines() if x.startswith("error")]
        result = f"exit {done.returncode}: " + (errors[0] if errors else done.stdout.strip())
    return f"| {algorithm} | {ranks} | {cpu:.2f} | {peak:,.0f} MiB | {result} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--algorithms", default=",".join(DEFAULT_ALGORITHMS))
    parser.add_argument("--shapes", default=",".join(DEFAULT_SHAPES))
    parser.add_argument("--collective", default="allreduce")
    parser.add_argument("--output", help="Markdown file to write")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per measurement")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--cli", help="ALGORITHM:RANKS,...: time `topocoll verify` runs instead")
    args = parser.parse_args()
    if args.cli:
        print("| algorithm | ranks | CPU seconds | peak memory | result |")
        print("| --- | --- | --- | --- | --- |")
        for pair in args.cli.split(","):
            algorithm, ranks = pair.split(":")
            print(time_cli(algorithm, ranks, args.collective, args.timeout), flush=True)
        return 0
    if args.one:
        algorithm, collective, shape = args.one
        print(json.dumps(measure(algorithm, collective, shape_of(shape))))
        return 0
    known = {a["name"] for a in topocoll.algorithms()}
    load_at_start = os.getloadavg()[0]
    rows = []
    failed = False
    for algorithm in args.algorithms.split(","):
        if algorithm not in known:
            print(f"skipping {algorithm}: not registered", file=sys.stderr)
            continue
        for text in args.shapes.split(","):
            status, built, verified, report = measure_isolated(
                algorithm, args.collective, text, args.timeout
            )
            if status.startswith("unsupported"):
                continue
            failed |= status.startswith("FAIL")
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
            f" collective: {args.collective}; at most {args.timeout:.0f} s per measurement;"
            f" load average {load_at_start:.1f} when it started (seconds are wall time).",
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

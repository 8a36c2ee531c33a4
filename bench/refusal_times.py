"""How long `topocoll verify` (or `schedule`) takes to refuse every algorithm and collective at a
rank count far beyond the limits (docs/verification-benchmark.md, "Refusals at the largest rank
counts"). Each case runs in its own process, one at a time, with the limits the fuzz tests set
(tests/python/test_fuzz.py's `fast_limits`), so that every case is a refusal.

    .venv/bin/python bench/refusal_times.py --ranks 16000000 --top 15
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

import topocoll

# The fuzz tests' limits: every instance beyond about a second of work is refused.
RUNNER = """
import sys
from topocoll import limits
from topocoll.cli import main
limits.TIME_LIMIT_S = 0.5
limits.EXPORT_LIMIT_BYTES = 1 << 20
sys.exit(main(sys.argv[1:]))
"""


def run_case(command: str, algorithm: str, collective: str, ranks: int, timeout: float) -> dict:
    argv = [command, "-c", collective, "-a", algorithm, "--ranks", str(ranks)]
    start = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-c", RUNNER, *argv], capture_output=True, text=True, timeout=timeout
        )
        code, err = done.returncode, done.stderr.strip()
    except subprocess.TimeoutExpired:
        code, err = None, f"still running after {timeout:.0f} s"
    seconds = time.monotonic() - start
    return {
        "case": f"{command} {algorithm} {collective}",
        "code": code,
        "seconds": seconds,
        "lines": len(err.splitlines()),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=16_000_000)
    parser.add_argument("--commands", default="verify,schedule")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per case")
    parser.add_argument("--top", type=int, default=15, help="slowest cases to list")
    args = parser.parse_args()
    results = [
        run_case(command, entry["name"], collective, args.ranks, args.timeout)
        for entry in topocoll.algorithms()
        for collective in entry["collectives"]
        for command in args.commands.split(",")
    ]
    odd = [r for r in results if r["code"] != 2 or r["lines"] != 1]
    times = [r["seconds"] for r in results]
    print(
        f"{len(results)} runs at {args.ranks:,} ranks: median {statistics.median(times):.1f} s, "
        f"slowest {max(times):.1f} s; {len(results) - len(odd)} refused with exit 2 and one line"
    )
    for r in odd:
        print(f"NOT A ONE-LINE REFUSAL: {r['case']}: exit {r['code']}, {r['lines']} lines")
    print("\n| case | seconds |\n|---|---|")
    for r in sorted(results, key=lambda r: -r["seconds"])[: args.top]:
        print(f"| {r['case']} | {r['seconds']:.1f} |")
    return 1 if odd else 0


if __name__ == "__main__":
    sys.exit(main())

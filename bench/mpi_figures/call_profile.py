"""Where a small call's time goes: topocoll's schedule against Open MPI's same algorithm.

Runs `topocoll-call-loop` (back-to-back calls, no barrier) on 2 ranks, alternating topocoll's
algorithm and Open MPI's (coll_tuned forced), prints the mean microseconds per call of each run,
then samples both with `perf record -e cpu-clock` (software clock: no hardware counters needed)
and prints each rank's time per call by library, and topocoll's functions
(docs/mpi-benchmark.md, "Small messages", the time profile).

    python bench/mpi_figures/call_profile.py --loop build/cpp/topocoll-call-loop
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import tempfile
from collections import defaultdict
from pathlib import Path

# `perf report -n --sort dso,symbol` lines: "  3.14%  1585  libx.so  [.] symbol".
REPORT_LINE = re.compile(r"^\s*[\d.]+%\s+(\d+)\s+(\S+)\s+\[.\]\s+(.*?)\s*(?:-\s+-\s*)?$")
# Libraries grouped as the docs' table reads them; anything else is "other".
GROUPS = (
    ("libtopocoll_mpi", "topocoll runtime (libtopocoll_mpi.so)"),
    ("btl_vader", "transport and progress loop (btl_vader, libopen-pal)"),
    ("libopen-pal", "transport and progress loop (btl_vader, libopen-pal)"),
    ("pml_ob1", "PML (mca_pml_ob1)"),
    ("libmpi.", "MPI API, requests, reduction (libmpi)"),
    ("coll_libnbc", "libnbc progress callback"),
    ("coll_tuned", "coll_tuned's decision"),
    ("libc.", "libc"),
    ("ld-linux", "dynamic linker (TLS descriptors)"),
)


def ompi_env(algorithm: int) -> dict[str, str]:
    forced = {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1"}
    forced["OMPI_MCA_coll_tuned_allreduce_algorithm"] = str(algorithm)
    return {**os.environ, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
            **forced}  # fmt: skip


def loop_command(loop: Path, algorithm: str, iterations: int, count: int) -> list[str]:
    return ["mpiexec", "-n", "2", str(loop), algorithm, str(iterations), str(count)]


def timed(args: argparse.Namespace) -> None:
    env = ompi_env(args.ompi_algorithm)
    for run in range(1, args.runs + 1):
        cells = []
        for name in (args.algorithm, "ompi"):
            cmd = loop_command(args.loop, name, args.iterations, args.count)
            out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
            cells.append(f"{name} {float(out.stdout.split()[-1]):.3f} us")
        print(f"run {run}: " + ", ".join(cells))


def profile(args: argparse.Namespace, name: str, folder: Path) -> list[dict[str, int]]:
    """Samples per (library group or topocoll function) on each rank."""
    data = folder / f"{name}.%r.data"
    program = loop_command(args.loop, name, args.profile_iterations, args.count)[3:]
    output = str(data).replace("%r", "$OMPI_COMM_WORLD_RANK")
    record = f"perf record -q -e cpu-clock -F {args.frequency} -o {output} " + " ".join(program)
    subprocess.run(["mpiexec", "-n", "2", "sh", "-c", record], env=ompi_env(args.ompi_algorithm),
                   check=True, capture_output=True)  # fmt: skip
    ranks = []
    for rank in (0, 1):
        report = subprocess.run(
            ["perf", "report", "-i", str(data).replace("%r", str(rank)), "-n", "--no-children",
             "--sort", "dso,symbol", "--stdio", "-q"],
            check=True, capture_output=True, text=True).stdout  # fmt: skip
        samples: dict[str, int] = defaultdict(int)
        for line in report.splitlines():
            if m := REPORT_LINE.match(line):
                count, library, symbol = int(m.group(1)), m.group(2), m.group(3)
                group = next((g for key, g in GROUPS if key in library), "other")
                samples[group] += count
                samples["total"] += count
                if "topocoll_mpi" in library:
                    samples[f"  {symbol[:70]}"] += count
        ranks.append(samples)
    return ranks


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--loop", type=Path, default=Path("build/cpp/topocoll-call-loop"))
    p.add_argument("--algorithm", default="recdoub-lat")
    p.add_argument("--ompi-algorithm", type=int, default=3, help="coll_tuned's number (3: recdoub)")
    p.add_argument("--count", type=int, default=2, help="floats per call (2: 8 bytes)")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--iterations", type=int, default=200_000)
    p.add_argument("--profile-iterations", type=int, default=2_000_000)
    p.add_argument("--frequency", type=int, default=20_000, help="perf samples per second")
    args = p.parse_args()
    timed(args)
    # topocoll-call-loop runs iterations / 10 + 10 warm-up calls before the timed ones
    calls = args.profile_iterations + args.profile_iterations // 10 + 10
    with tempfile.TemporaryDirectory() as folder:
        ours = profile(args, args.algorithm, Path(folder))
        theirs = profile(args, "ompi", Path(folder))
    us = 1e6 / args.frequency / calls
    print(f"\nus per call, rank 0 / rank 1: {args.algorithm} | ompi | difference")
    keys = sorted(set(ours[0]) | set(theirs[0]), key=lambda k: (k.startswith(" "), -ours[0][k]))
    for key in keys:
        a = [ours[r].get(key, 0) * us for r in (0, 1)]
        b = [theirs[r].get(key, 0) * us for r in (0, 1)]
        if key.startswith(" ") and a[0] < 0.005:
            continue
        print(f"{key:72.72s} {a[0]:.3f} / {a[1]:.3f} | {b[0]:.3f} / {b[1]:.3f} | "
              f"{a[0] - b[0]:+.3f} / {a[1] - b[1]:+.3f}")  # fmt: skip


if __name__ == "__main__":
    main()

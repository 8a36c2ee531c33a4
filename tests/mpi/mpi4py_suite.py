"""Runs mpi4py's own collective test suite under LD_PRELOAD=libtopocoll_pmpi.so.

The suite comes from the source distribution of the mpi4py version requirements-dev.txt pins
(fetched once with `pip download --no-binary mpi4py --no-deps mpi4py==VERSION` into --cache);
its test/main.py runs against the installed mpi4py of --python. For each family (the
defaults, or Bine, Swing, Trivance, or the hier: and leader: compositions on emulated nodes,
forced through TOPOCOLL_<COLL>_ALGORITHM) and each rank
count, every rank must pass, and TOPOCOLL_VERBOSE must show topocoll serving calls: each
forced algorithm at least once at 2 ranks and more. Prints one summary line per run (calls
served per algorithm, calls the MPI library served and why).

    mpi4py_suite.py --mpiexec mpiexec --library build/cpp/libtopocoll_pmpi.so \\
        --python .venv/bin/python --requirements requirements-dev.txt --cache build/mpi4py \\
        --families defaults,bine --ranks 1,2,3 --tests test_cco_buf.py
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

# The algorithm each family forces per collective; collectives a family does not implement
# keep the default (auto). Latency variants for allreduce: mpi4py's buffers are small.
FAMILIES: dict[str, dict[str, str]] = {
    "defaults": {},
    "bine": {
        "ALLREDUCE": "bine-lat",
        "REDUCE_SCATTER_BLOCK": "bine-bw",
        "REDUCE_SCATTER": "bine-bw",
        "ALLGATHER": "bine-bw",
        "BCAST": "bine-doubling",
        "REDUCE": "bine-halving",
        "GATHER": "bine",
        "SCATTER": "bine",
        "ALLTOALL": "bine",
    },
    "swing": {
        "ALLREDUCE": "swing-lat",
        "REDUCE_SCATTER_BLOCK": "swing-bw",
        "REDUCE_SCATTER": "swing-bw",
        "ALLGATHER": "swing-bw",
    },
    "trivance": {
        "ALLREDUCE": "trivance-lat",
        "REDUCE_SCATTER_BLOCK": "trivance-bw",
        "REDUCE_SCATTER": "trivance-bw",
        "ALLGATHER": "trivance-bw",
    },
    # The compositions (docs/hierarchical.md) on nodes of NODE_SIZES[family] emulated ranks.
    "hier": {
        "ALLREDUCE": "hier:ring",
        "REDUCE_SCATTER_BLOCK": "hier:ring",
        "REDUCE_SCATTER": "hier:ring",
        "ALLGATHER": "hier:ring",
        "BCAST": "hier:binomial-doubling",
        "REDUCE": "hier:binomial-halving",
    },
    "leader": {
        "ALLREDUCE": "leader:recdoub-lat",
        "REDUCE_SCATTER_BLOCK": "leader:ring",
        "REDUCE_SCATTER": "leader:ring",
        "ALLGATHER": "leader:ring",
        "BCAST": "leader:binomial-doubling",
        "REDUCE": "leader:binomial-halving",
        "GATHER": "leader:binomial",
        "SCATTER": "leader:binomial",
    },
}
# TOPOCOLL_RANKS_PER_NODE per family (the others: the machine's nodes, unused by them).
NODE_SIZES: dict[str, int] = {"hier": 2, "leader": 2}
VERBOSE_LINE = re.compile(
    r"^topocoll: (\w+) comm_size=(\d+) .*algorithm=([\w:-]+)(?: fallback=(.*))?$"
)
# unittest's closing lines, one pair per rank: "Ran 72 tests in 0.437s" and "OK (skipped=3)"
# or "FAILED (failures=1, errors=2, skipped=3)". The ranks share one stderr, so a line may
# arrive glued to another rank's ("-----...Ran 72 tests", "OKtopocoll: bcast ..." when a
# verbose line came between "OK" and its newline): searched, not matched.
RAN_LINE = re.compile(r"Ran (\d+) tests? in ")
OUTCOME_LINE = re.compile(
    r"(?:^|(?<=[-a-z0-9]))(OK|FAILED)(?: \(([\w =,]*)\))?(?=$|topocoll: |Ran |-|\[)"
)


def pinned_version(requirements: Path) -> str:
    for line in requirements.read_text().splitlines():
        match = re.fullmatch(r"\s*mpi4py==([\w.]+)\s*(#.*)?", line)
        if match:
            return match.group(1)
    raise SystemExit(f"error: {requirements} pins no mpi4py==VERSION")


def test_directory(python: str, version: str, cache: Path) -> Path:
    """The sdist's test/ folder, downloaded and unpacked on first use."""
    tests = cache / f"mpi4py-{version}" / "test"
    if (tests / "main.py").is_file():
        return tests
    cache.mkdir(parents=True, exist_ok=True)
    # --no-binary names mpi4py alone: pip prepares the sdist's metadata in an isolated build
    # environment, and `:all:` would build its build dependencies (Cython) from source too,
    # 256 s on a fresh 2-core machine against 5 s with their wheels (2026-11-30).
    command = [python, "-m", "pip", "download", "-q", "--no-binary", "mpi4py", "--no-deps"]
    command += [f"mpi4py=={version}", "-d", str(cache)]
    if subprocess.run(command).returncode != 0:
        raise SystemExit(f"error: could not download the mpi4py {version} sdist from PyPI")
    archive = cache / f"mpi4py-{version}.tar.gz"
    with tarfile.open(archive) as tar:
        try:
            tar.extractall(cache, filter="data")
        except TypeError:  # a Python without extraction filters (before 3.11.4)
            tar.extractall(cache)  # noqa: S202 (PyPI's archive of the pinned version)
    if not (tests / "main.py").is_file():
        raise SystemExit(f"error: {archive} has no test/main.py")
    return tests


def summarize(verbose: str) -> tuple[collections.Counter, collections.Counter]:
    served: collections.Counter = collections.Counter()
    library: collections.Counter = collections.Counter()
    for line in verbose.splitlines():
        match = VERBOSE_LINE.match(line)
        if not match:
            continue
        collective, _, algorithm, reason = match.groups()
        if algorithm == "mpi":
            library[f"{collective}: {reason}"] += 1
        else:
            served[algorithm] += 1
    return served, library


def count_tests(stderr: str) -> str:
    """Tests run, passed and skipped per rank, as 'run/passed/skipped' (ranks that differ: each)."""
    ran = [int(m.group(1)) for m in map(RAN_LINE.search, stderr.splitlines()) if m]
    outcomes = [m for m in map(OUTCOME_LINE.search, stderr.splitlines()) if m]
    if not ran or len(ran) != len(outcomes):
        return "no unittest summary"
    cells = []
    for total, outcome in zip(ran, outcomes, strict=True):
        counts: collections.Counter[str] = collections.Counter()
        for item in (outcome.group(2) or "").split(", "):
            if "=" in item:
                key, value = item.split("=")
                counts[key] = int(value)
        not_passed = sum(counts[k] for k in ("failures", "errors", "skipped", "expected failures"))
        cells.append(f"{total}/{total - not_passed}/{counts['skipped']}")
    distinct = sorted(set(cells))
    return f"tests run/passed/skipped per rank: {', '.join(distinct)} ({len(cells)} ranks)"


def run_one(args: argparse.Namespace, tests: Path, family: str, ranks: int) -> bool:
    env = dict(os.environ)
    for name in list(env):
        if name.startswith("TOPOCOLL_"):
            del env[name]
    forced = FAMILIES[family]
    settings = [f"TOPOCOLL_{c}_ALGORITHM={a}" for c, a in forced.items()]
    if family in NODE_SIZES:
        settings.append(f"TOPOCOLL_RANKS_PER_NODE={NODE_SIZES[family]}")
    # TOPOCOLL_MACHINE=none: the collectives left at `auto` run the built-in table's schedules
    # rather than going to the library wherever the default machine predicts no gain (the suite
    # checks the schedules; tests/mpi/misuse.cpp checks that comparison).
    settings += ["TOPOCOLL_MACHINE=none", "TOPOCOLL_VERBOSE=1", "TOPOCOLL_FALLBACK=silent"]
    settings.append(f"LD_PRELOAD={args.library}")
    command = [args.mpiexec, args.np_flag, str(ranks), "env", *settings, args.python, "main.py"]
    command += ["-q", *args.tests]
    started = time.monotonic()
    with tempfile.TemporaryFile("w+") as err:
        result = subprocess.run(
            command,
            cwd=tests,
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            timeout=args.timeout,
        )
        err.seek(0)
        stderr = err.read()
    seconds = time.monotonic() - started
    served, library = summarize(stderr)
    problems = []
    if result.returncode != 0:
        problems.append(f"exit code {result.returncode}")
    if ranks >= 2 and not served:
        problems.append("topocoll served no call")
    for algorithm in sorted(set(forced.values())):
        if ranks >= 2 and served[algorithm] == 0:
            problems.append(f"the forced {algorithm} served no call")
    calls = ", ".join(f"{a} {n}" for a, n in sorted(served.items())) or "none"
    print(
        f"{family} np={ranks}: {'FAIL (' + '; '.join(problems) + ')' if problems else 'OK'} "
        f"in {seconds:.0f} s; calls served by topocoll: {calls}; by the MPI library: "
        f"{sum(library.values())}; {count_tests(stderr)}",
        flush=True,
    )
    if "no unittest summary" in count_tests(stderr):
        # The closing lines arrived cut by other ranks' output: show what there is of them.
        pieces = [line for line in stderr.splitlines() if re.search(r"Ran \d|OK|FAILED", line)]
        print("    unittest's closing lines as they arrived:", *pieces[-16:], sep="\n    ")
    if problems:
        print(result.stdout[-6000:])
        unittest_lines = [line for line in stderr.splitlines() if not line.startswith("topocoll:")]
        print("\n".join(unittest_lines[-80:]))
    elif args.show_fallbacks:
        # (ranks share one stderr, so a few lines arrive cut; the commonest reasons are whole)
        for reason, n in library.most_common(10):
            print(f"    {n} x {reason}")
    return not problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpiexec", required=True)
    parser.add_argument("--np-flag", default="-n")
    parser.add_argument("--library", required=True, help="libtopocoll_pmpi.so")
    parser.add_argument("--python", required=True, help="a python whose mpi4py is the pinned one")
    parser.add_argument("--requirements", required=True, type=Path)
    parser.add_argument("--cache", required=True, type=Path, help="where the sdist is unpacked")
    parser.add_argument("--families", default="defaults,bine,swing,trivance")
    parser.add_argument("--ranks", default="1,2,3,4,5,8")
    parser.add_argument("--tests", nargs="+", default=["test_cco_buf.py"])
    parser.add_argument("--timeout", type=float, default=1200, help="seconds per run")
    parser.add_argument("--show-fallbacks", action="store_true")
    args = parser.parse_args()
    args.library = str(Path(args.library).resolve())
    args.python = os.path.abspath(args.python)  # not resolved: a venv python is a symlink
    families = args.families.split(",")
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        parser.error(f"unknown family {unknown[0]!r}; accepted: {', '.join(FAMILIES)}")
    version = pinned_version(args.requirements)
    tests = test_directory(args.python, version, args.cache.resolve())
    print(f"mpi4py {version} test suite: {' '.join(args.tests)}", flush=True)
    ok = True
    for family in families:
        for ranks in (int(r) for r in args.ranks.split(",")):
            ok = run_one(args, tests, family, ranks) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

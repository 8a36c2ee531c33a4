"""`topocoll tune`: rules from the simulator's ranking, and `auto` in the MPI runtime following
them on real MPI ranks (topocoll-bench under mpirun, TOPOCOLL_VERBOSE=1 naming what ran)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from topocoll import tuning as tune
from topocoll.comparison import compare

# Its module-scoped fixture runs once: every test of the module on one pytest-xdist worker
# (`--dist loadgroup`, Makefile).
pytestmark = pytest.mark.xdist_group("tuning")

ROOT = Path(__file__).resolve().parents[2]
BENCH = Path(os.environ.get("TOPOCOLL_BENCH", ROOT / "build/cpp/bench/mpi/topocoll-bench"))
TORUS, RANKS, DIMS = "torus:2x2", 4, "2x2"
SIZES = "8B:4MiB"


def test_bands_merge_runs_of_the_same_algorithm():
    best = [(32, "b"), (8, "a"), (16, "a"), (64, "b"), (128, "a")]
    assert tune.bands(best) == [
        tune.Band(8, 16, "a"),
        tune.Band(32, 64, "b"),
        tune.Band(128, 128, "a"),
    ]


@pytest.fixture(scope="module")
def tuned():
    comparison = compare(TORUS, "allreduce", sizes=SIZES, use_mpi=False)
    return comparison, tune.rules_from(comparison)


def test_rules_cover_every_size_with_the_simulators_best(tuned):
    comparison, rules = tuned
    assert rules["version"] == 1
    for s in comparison.summary:
        assert tune.select(rules, "allreduce", RANKS, s.size_bytes) == s.best
    # Bands are contiguous from 0 to the end, one rule per change of the best algorithm.
    bounds = [(r["min_bytes"], r["max_bytes"]) for r in rules["rules"]]
    assert bounds[0][0] == 0 and bounds[-1][1] == tune.NO_UPPER_END
    assert all(hi + 1 == lo for (_, hi), (lo, _) in zip(bounds, bounds[1:], strict=False))
    names = [r["algorithm"] for r in rules["rules"]]
    assert all(a != b for a, b in zip(names, names[1:], strict=False))
    assert len(names) >= 2, "the test needs a torus where the best algorithm changes with size"


def test_chunked_collectives_count_one_block():
    # On ring:8 the best reduce-scatter changes between 16 KiB and 1 MiB (trivance-bw, then
    # bucket): the rule boundary is the per-rank block of the first size of the new band, and
    # the byte just below it still selects the earlier algorithm.
    comparison = compare("ring:8", "reduce-scatter", sizes="16KiB,1MiB", use_mpi=False)
    rules = tune.rules_from(comparison)
    first, second = (s.best for s in comparison.summary)
    assert first != second, "the test needs a size pair where the best algorithm changes"
    boundary = (1 << 20) // 8
    assert [r["min_bytes"] for r in rules["rules"]] == [0, boundary]
    assert tune.select(rules, "reduce-scatter", 8, boundary - 1) == first
    assert tune.select(rules, "reduce-scatter", 8, boundary) == second


def test_cli_writes_the_rules_file(run_cli, tmp_path):
    path = tmp_path / "rules.json"
    code, out, err = run_cli(
        "tune", "-t", TORUS, "-p", "4", "--sizes", "8B:64KiB", "--output", str(path)
    )
    assert code == 0, err
    doc = json.loads(path.read_text())
    assert doc["version"] == 1 and doc["rules"]
    assert f"TOPOCOLL_RULES={path}" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (("tune", "-p", "4"), "--topology is required"),
        (("tune", "-t", TORUS), "--ranks is required"),
        (("tune", "-t", TORUS, "-p", "4", "-c", "allsum"), "allsum"),
        (("tune", "-t", TORUS, "-p", "4", "--sizes", "9XB"), "9XB"),
        (("tune", "-t", TORUS, "-p", "4", "-o", "/no/such/dir/r.json"), "no such directory"),
    ],
)
def test_cli_rejects_bad_input_with_exit_2(run_cli, argv, message):
    code, _, err = run_cli(*argv)
    assert code == 2 and message in err


@pytest.mark.skipif(
    not BENCH.is_file() or shutil.which("mpirun") is None,
    reason="needs mpirun and topocoll-bench (make build with an MPI installed)",
)
def test_auto_picks_the_simulators_best_on_mpi_ranks(tuned, tmp_path):
    comparison, rules = tuned
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(rules))
    env = dict(
        os.environ,
        TOPOCOLL_ALLREDUCE_ALGORITHM="auto",
        TOPOCOLL_RULES=str(path),
        TOPOCOLL_VERBOSE="1",
        # auto follows the tuned rules alone (without it, auto also weighs each candidate
        # against the MPI library's own choice on its default machine, docs/mpi.md)
        TOPOCOLL_MACHINE="none",
        TOPOCOLL_DIMS=DIMS,  # the shape the simulator gave the torus algorithms
        OMPI_MCA_rmaps_base_oversubscribe="1",
        OMPI_ALLOW_RUN_AS_ROOT="1",
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
    )
    sizes = [s.size_bytes for s in comparison.summary]
    command = ["mpirun", "-np", str(RANKS), str(BENCH), "-b", str(sizes[0]), "-e", str(sizes[-1])]
    command += ["-f", "2", "-n", "1", "-w", "0", "-d", "float", "--algorithm", "auto"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    ran: dict[int, set[str]] = {}
    line = re.compile(r"topocoll: allreduce comm_size=4 count=(\d+) type=\S+ algorithm=(\S+)")
    for match in line.finditer(done.stderr):
        ran.setdefault(int(match.group(1)) * 4, set()).add(match.group(2))
    for s in comparison.summary:
        assert ran.get(s.size_bytes) == {s.best}, (s.size_bytes, ran.get(s.size_bytes), s.best)

"""topocoll.validation's arithmetic on hand-computed cases (Kendall's tau-b, the per-size
verdicts, the summary, the size grid), and `calibrate`/`validate` refusing, with one line and
exit 2, what they cannot run: one process (no mpirun), a bad name, an unwritable output. The
runs under mpirun are MPI tests (tests/mpi/validation_program.py)."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import pytest
from topocoll import validation
from topocoll.cli import calibrate
from topocoll.cli.validate import comma_names
from topocoll.validation import Row, kendall_tau_b, size_verdicts, summarize


def test_tau_identical_and_reversed_orderings():
    assert kendall_tau_b([1, 2, 3], [10, 20, 30]) == 1.0
    assert kendall_tau_b([1, 2, 3], [30, 20, 10]) == -1.0


def test_tau_one_swapped_pair():
    # Pairs of (1,3,2,4): five concordant, one discordant (2 and 3): (5 - 1) / 6.
    assert kendall_tau_b([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(2 / 3)


def test_tau_b_with_a_tie():
    # x ties one pair of three; the other two are concordant: 2 / sqrt((3 - 1) * (3 - 0)).
    assert kendall_tau_b([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / math.sqrt(6))


def test_tau_undefined():
    assert kendall_tau_b([5], [1]) is None
    assert kendall_tau_b([1, 1], [1, 2]) is None
    with pytest.raises(ValueError):
        kendall_tau_b([1, 2], [1])


def rows_of(collective, size, table):
    """Rows from (algorithm, predicted, measured) with their errors."""
    rows = [Row(collective, size, a, p, samples_s=[m]) for a, p, m in table]
    validation.finish_rows(rows)
    return rows


def test_errors_verdicts_and_summary():
    # Size 64: the simulator ranks b first (1.0), which measures 1.05 against a's 1.0:
    # within 10%. Size 128: it ranks d first, measured 1.2 against c's 1.0: not within.
    rows = rows_of("allreduce", 64, [("a", 1.1, 1.0), ("b", 1.0, 1.05), ("x", 3.0, 2.0)])
    rows += rows_of("allreduce", 128, [("c", 2.0, 1.0), ("d", 0.96, 1.2)])
    assert [round(r.error, 4) for r in rows] == [0.1, round(-0.05 / 1.05, 4), 0.5, 1.0, -0.2]
    verdicts = {v.size_bytes: v for v in size_verdicts(rows)}
    assert verdicts[64].predicted_best == "b" and verdicts[64].measured_best == "a"
    assert verdicts[64].best_within_10pct
    assert verdicts[128].predicted_best == "d" and not verdicts[128].best_within_10pct
    # Size 64: pairs (a,b) discordant, (a,x) and (b,x) concordant: (2 - 1) / 3.
    assert verdicts[64].kendall_tau == pytest.approx(1 / 3)
    assert verdicts[128].kendall_tau == -1.0
    summary = summarize(rows, list(verdicts.values()))
    # |errors| 0.1, 0.0476, 0.5, 1.0, 0.2: the median is 0.2.
    assert summary["median_abs_error"] == pytest.approx(0.2)
    assert summary["sizes"] == 2 and summary["sizes_best_within_10pct"] == 1
    assert summary["fraction_best_within_10pct"] == 0.5
    assert summary["median_kendall_tau"] == pytest.approx((1 / 3 - 1) / 2)


def test_tied_predictions_take_the_median_of_the_tied():
    # a, b and c are predicted alike (one schedule, three names): following the simulator
    # gets any of them, the median 1.3, against d's 1.0: not within 10%. e is slower.
    rows = rows_of(
        "bcast",
        8,
        [("a", 1.0, 1.05), ("b", 1.0, 1.3), ("c", 1.0005, 2.0), ("d", 1.5, 1.0), ("e", 2, 3)],
    )
    (verdict,) = size_verdicts(rows)
    assert verdict.predicted_best == "a=b=c" and verdict.measured_best == "d"
    assert verdict.predicted_best_measured_s == 1.3 and not verdict.best_within_10pct


def test_medians_of_samples():
    rows = [Row("bcast", 8, "a", 2.0, samples_s=[5.0, 1.0, 2.0, 100.0])]
    validation.finish_rows(rows)
    assert rows[0].measured_s == 3.5 and rows[0].error == pytest.approx(-1.5 / 3.5)


def test_saved_rows_take_the_median_and_the_error_of_their_samples():
    # A --json document's row as `topocoll validate` writes it (docs/validation/vm2-*.json)
    row = {"collective": "bcast", "size_bytes": 8, "algorithm": "binomial-doubling",
           "predicted_s": 1e-6, "messages": 1, "measured_s": 9.0, "error": 9.0,
           "samples_s": [4e-6, 1e-6, 2e-6]}  # fmt: skip
    (saved,) = validation.saved_rows({"rows": [row]})
    assert saved.measured_s == 2e-6  # the median, not the stored value
    assert saved.error == pytest.approx(-0.5)
    assert (saved.collective, saved.algorithm, saved.messages) == ("bcast", "binomial-doubling", 1)


def test_size_grid():
    sizes = validation.size_range("8B:64MiB")
    assert sizes[:3] == [8, 32, 128] and sizes[-2:] == [32 << 20, 64 << 20] and len(sizes) == 13
    assert validation.size_range("8B:4KiB") == [8, 32, 128, 512, 2048, 4096]
    assert validation.size_range("1KiB,8") == [8, 1024]
    with pytest.raises(ValueError):
        validation.size_range("4KiB:8B")


def test_runtime_bytes():
    assert validation.runtime_bytes("allreduce", 10, 2) == 8  # whole MPI_INT elements
    assert validation.runtime_bytes("allgather", 8, 4) == 0  # 2 elements, not 4 blocks
    assert validation.runtime_bytes("reduce-scatter", 100, 3) == 96


def test_unwritable_outputs():
    assert "does not exist" in calibrate.unwritable("/nonexistent/x.json")
    assert calibrate.unwritable("/tmp") == "is a folder"
    with pytest.raises(OSError):
        calibrate.write_machine("/dev/full", {"format": "topocoll-machine/1"})
    assert calibrate.companion("out/m.json") == "out/m-intra-node.json"


def topocoll(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    return subprocess.run(
        [sys.executable, "-m", "topocoll.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def one_line_exit_2(done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0]


@pytest.mark.parametrize("out", ["m.json", "/nonexistent/x.json", "/dev/full"])
def test_calibrate_without_mpirun(out, tmp_path):
    # One process: mpi4py's singleton has one rank, or there is no mpi4py; either way one line.
    done = topocoll("calibrate", "--out", str(tmp_path / out) if out == "m.json" else out)
    one_line_exit_2(done, "calibrate")
    assert not (tmp_path / "m.json").exists()


def test_calibrate_bad_name(tmp_path):
    done = topocoll("calibrate", "--out", str(tmp_path / "m.json"), "--name", "Bad Name")
    one_line_exit_2(done, "--name", "a-z")


def test_validate_without_mpirun(tmp_path):
    one_line_exit_2(topocoll("validate", "--machine", str(tmp_path / "m.json")), "validate")


@pytest.mark.parametrize("seconds", ["-5", "0", "nan", "inf", "abc"])
def test_validate_max_seconds_out_of_range(seconds, tmp_path):
    # -5 refused every run "estimated at 3362 s, beyond --max-seconds -5"; now the flag itself.
    done = topocoll("validate", "--machine", str(tmp_path / "m.json"), "--max-seconds", seconds)
    one_line_exit_2(done, "--max-seconds", "accepted: 1e-06 to 1e+07")


def test_validate_names_each_collective_and_algorithm_once():
    # ring,ring measured and predicted ring twice: two rows per size.
    assert comma_names("ring, ring,bine-lat,,ring") == ["ring", "bine-lat"]
    assert comma_names("") is None and comma_names(None) is None

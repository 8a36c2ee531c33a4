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
from topocoll.errors import InputError
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


def test_the_medians_interval_is_the_sign_tests():
    # Conover's table: n = 15 -> x_(4), x_(12); n = 100 -> x_(40), x_(61) (P(B <= 39) = 1.8%,
    # P(B <= 40) = 2.8%); n = 6 -> the extremes (1/64 = 1.6%); n = 5 -> none (1/32 = 3.1%).
    assert validation.median_interval([15 - i for i in range(15)]) == (4, 12)
    assert validation.median_interval(list(range(1, 101))) == (40, 61)
    assert validation.median_interval([3, 1, 2, 6, 5, 4]) == (1, 6)
    assert validation.median_interval([1, 2, 3, 4, 5]) is None
    assert validation.relative_half_width([1, 2, 3, 4, 5]) == math.inf
    # 15 samples, x_(4) = 9.7 and x_(12) = 10.3 around the median 10: +/- 3%
    samples = [9.0, 9.2, 9.5, 9.7, 9.8, 9.9, 9.95, 10.0, 10.05, 10.1, 10.2, 10.3, 10.5, 11, 12]
    assert validation.relative_half_width(samples) == pytest.approx(0.03)


def test_repetitions_stop_at_the_precision_or_the_most():
    plan = validation.Repetitions(least=6, most=8, precision=0.05)
    steady = [1.0, 1.01, 0.99, 1.0, 1.02, 0.98]
    assert plan.more_needed(steady[:5])  # below the least
    assert not plan.more_needed(steady)  # +/- 2%
    assert plan.more_needed([1.0, 2.0, 1.0, 2.0, 1.0, 2.0])  # +/- 67%
    assert not plan.more_needed([1.0, 2.0] * 4)  # the most
    assert not validation.Repetitions(3, 3).more_needed([1.0, 5.0, 9.0])  # a fixed count


def test_measure_all_samples_every_row_of_a_size_while_one_is_imprecise():
    noisy = iter([1.0, 2.0] * 50)
    calls: list[str] = []

    def measure(comm, collective, algorithm, size, calls_per_sample, warmup):
        calls.append(algorithm)
        return [next(noisy) if algorithm == "noisy" else 1.0] * calls_per_sample

    rows = [Row("allreduce", s, a, 1e-6) for s, a in ((8, "steady"), (8, "noisy"), (16, "alone"))]
    plan = validation.Repetitions(least=6, most=10)
    validation.measure_all(None, rows, plan, 0, [], [], measure=measure)
    # The steady row goes on beside the noisy one (the same rounds, the same machine state);
    # the other size stops at the least.
    assert [len(r.samples_s) for r in rows] == [10, 10, 6]
    assert calls == ["steady", "noisy"] * 10 + ["alone"] * 6


def test_fewer_most_than_least_repetitions_is_refused():
    class TwoRanks:
        def Get_size(self) -> int:
            return 2

    with pytest.raises(InputError, match="--max-repetitions 5 is below --repetitions 15"):
        validation.validate(TwoRanks(), "m.json", repetitions=15, max_repetitions=5)


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


@pytest.mark.parametrize(
    ("flag", "value", "accepted"),
    [
        ("--precision", "0", "accepted: 0.001 to 0.5"),
        ("--precision", "nan", "accepted: 0.001 to 0.5"),
        ("--max-repetitions", "0", "accepted: 1..10000"),
        ("--max-repetitions", "many", "accepted: 1..10000"),
    ],
)
def test_validate_precision_flags_out_of_range(flag, value, accepted, tmp_path):
    done = topocoll("validate", "--machine", str(tmp_path / "m.json"), flag, value)
    one_line_exit_2(done, flag, accepted)


def test_validate_names_each_collective_and_algorithm_once():
    # ring,ring measured and predicted ring twice: two rows per size.
    assert comma_names("ring, ring,bine-lat,,ring") == ["ring", "bine-lat"]
    assert comma_names("") is None and comma_names(None) is None

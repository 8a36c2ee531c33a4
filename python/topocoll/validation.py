"""Validation: the simulator's predictions beside the MPI runtime's measurements of the same
schedules (docs/validation.md).

For each collective, size and registry algorithm that both the simulator and the runtime run
at the communicator's rank count, the simulator predicts a time on the machine file's topology
with the machine's parameters, and the runtime (topocoll.calibration.measure_collective)
measures it: repetitions interleaved (repetition outermost, algorithms inside, so that drift of
the machine hits every algorithm of a size alike), the median kept. A row takes a least number
of samples, then every row of its size takes more, up to a most, while the 95% interval of any
of their medians is wider than a relative precision (Repetitions). The metrics:

- error = (predicted - measured) / measured, per (collective, size, algorithm);
- per (collective, size): whether the predicted best is within 10% of the measured best (the
  measured time of the algorithm the simulator ranks first is at most 1.1 x the fastest
  measured time), and Kendall's tau-b between the predicted and the measured times;
- summary: the median |error| and the fraction of sizes whose predicted best is within 10%.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from topocoll import calibration, machine, simulation
from topocoll.collectives import CHUNKED
from topocoll.errors import InputError

# The runtime's name of each simulator collective (topocoll_time_collective): the simulator's
# reduce-scatter gives every rank an equal block.
RUNTIME_COLLECTIVES = {
    "allreduce": "allreduce",
    "allgather": "allgather",
    "reduce-scatter": "reduce_scatter_block",
    "bcast": "bcast",
    "reduce": "reduce",
    "gather": "gather",
    "scatter": "scatter",
    "alltoall": "alltoall",
}
DEFAULT_COLLECTIVES = ("allreduce", "allgather", "reduce-scatter", "bcast")
DEFAULT_SIZES = "8B:64MiB"
BEST_TOLERANCE = 0.10  # the predicted best counts when within 10% of the measured best
# Predictions this close to the smallest are a tie (the same schedule under two names): the
# simulator cannot tell them apart, so none of them is its pick over the others.
TIE_TOLERANCE = 1e-3
ELEMENT_BYTES = 4  # the runtime times MPI_INT data (datatype class "int")
DATATYPE = "int"
# The refusal's estimate, pessimistic: a collective takes up to SLOWDOWN times its prediction
# (docs/validation.md: 20x above the caches of a loaded 2-core VM), a call CALL_OVERHEAD_S
# more (barrier, launch), and the data's setup and check ELEMENT_COST_S per element per rank.
SLOWDOWN = 20
# Timed calls per measurement, one sample their median: on fresh buffers the first call after
# the warm-up ran 1.05 to 1.24 times slower than the next ones (docs/validation.md, "The timing
# harness"), and the calibration measures loops, not first calls.
STEADY_CALLS = 3
CALL_OVERHEAD_S = 50e-6
ELEMENT_COST_S = 20e-9
# A row's median is precise enough when its 95% interval spans at most +/- this much of it: a
# quarter of BEST_TOLERANCE, so that two medians 10% apart have intervals that do not meet.
DEFAULT_PRECISION = 0.025
CONFIDENCE = 0.95


def median_interval(samples: Sequence[float]) -> tuple[float, float] | None:
    """The distribution-free 95% confidence interval of the median of `samples`: the order
    statistics x_(j) and x_(n+1-j), j the largest with P(B <= j - 1) <= 2.5% for B ~ Bin(n, 1/2)
    (the sign test's interval; Conover, Practical Nonparametric Statistics, 3.2). None for
    fewer than 6 samples, where even the extremes hold the median with less than 95%."""
    n = len(samples)
    tail = (1 - CONFIDENCE) / 2
    below, j = 0.0, 0
    while j < n and below + math.comb(n, j) / 2**n <= tail:
        below += math.comb(n, j) / 2**n
        j += 1
    if j == 0:
        return None
    ordered = sorted(samples)
    return ordered[j - 1], ordered[n - j]


def relative_half_width(samples: Sequence[float]) -> float:
    """Half the width of the median's 95% interval over the median (inf when it has none)."""
    interval = median_interval(samples)
    median = statistics.median(samples) if samples else 0.0
    if interval is None or median <= 0:
        return math.inf
    return (interval[1] - interval[0]) / 2 / median


@dataclass(frozen=True)
class Repetitions:
    """How many samples a row takes: `least`, then more, up to `most`, while its median's 95%
    interval is wider than +/- `precision` of it. The rule of MPIBlib's MPIB_precision (minimum
    and maximum repetitions, a confidence level and a relative error) and SKaMPI's controlled
    error; least == most is a fixed count."""

    least: int
    most: int
    precision: float = DEFAULT_PRECISION

    def more_needed(self, samples: Sequence[float]) -> bool:
        if len(samples) < self.least:
            return True
        return len(samples) < self.most and relative_half_width(samples) > self.precision


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b of two paired samples (ties counted as in Kendall 1945): (concordant -
    discordant) / sqrt((n0 - tied x) (n0 - tied y)), n0 = n(n-1)/2. None when undefined:
    fewer than 2 pairs, or every pair tied in x or in y."""
    if len(x) != len(y):
        raise ValueError("kendall_tau_b needs samples of equal length")
    concordant = discordant = tied_x = tied_y = 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0:
                tied_x += 1
            if dy == 0:
                tied_y += 1
            if dx * dy > 0:
                concordant += 1
            elif dx * dy < 0:
                discordant += 1
    n0 = n * (n - 1) // 2
    denominator = math.sqrt((n0 - tied_x) * (n0 - tied_y))
    return (concordant - discordant) / denominator if denominator else None


def relative_error(predicted_s: float, measured_s: float) -> float:
    """(predicted - measured) / measured: positive when the simulator is pessimistic."""
    return (predicted_s - measured_s) / measured_s


def size_range(text: str) -> list[int]:
    """`8B:64MiB` -> 8 B times the powers of 4 up to 64 MiB, and 64 MiB itself; `A,B,C` ->
    those sizes; `S` -> [S]."""
    if ":" not in text:
        parts = [p for p in text.split(",") if p.strip()]
        if not parts:
            raise InputError(f"--sizes '{text}' is empty; accepted: LOW:HIGH or A,B,...")
        return sorted({simulation.parse_size(p.strip(), "--sizes") for p in parts})
    low_text, high_text = text.split(":", 1)
    low = simulation.parse_size(low_text.strip(), "--sizes")
    high = simulation.parse_size(high_text.strip(), "--sizes")
    if low > high:
        raise InputError(f"--sizes '{text}': the lower bound exceeds the upper; accepted: LOW:HIGH")
    sizes = []
    size = low
    while size <= high:
        sizes.append(size)
        size *= 4
    if sizes[-1] != high:
        sizes.append(high)
    return sizes


def runtime_bytes(collective: str, size: int, ranks: int) -> int:
    """The bytes the runtime moves for `size`: whole MPI_INT elements, and P equal blocks for
    the chunked collectives (topocoll_time_collective); 0 when nothing is left."""
    elements = size // ELEMENT_BYTES
    if collective in CHUNKED:
        elements -= elements % ranks
    return elements * ELEMENT_BYTES


@dataclass
class Row:
    collective: str
    size_bytes: int
    algorithm: str
    predicted_s: float
    messages: int = 0  # the simulated schedule's messages, all ranks together
    measured_s: float | None = None
    error: float | None = None
    samples_s: list[float] = field(default_factory=list)
    interval_s: tuple[float, float] | None = None  # the median's 95% interval (median_interval)


@dataclass
class SizeVerdict:
    collective: str
    size_bytes: int
    algorithms: int
    predicted_best: str  # the tied ones joined by "="
    measured_best: str
    predicted_best_measured_s: float
    measured_best_s: float
    best_within_10pct: bool
    kendall_tau: float | None


def finish_rows(rows: Iterable[Row]) -> None:
    """Each row's median measured time, its interval and its error, from its samples."""
    for row in rows:
        if row.samples_s:
            row.measured_s = statistics.median(row.samples_s)
            row.interval_s = median_interval(row.samples_s)
            row.error = relative_error(row.predicted_s, row.measured_s)


def saved_rows(document: dict[str, Any]) -> list[Row]:
    """The rows of a `topocoll validate --json` document, each with its median and error."""
    rows = [
        Row(
            r["collective"],
            r["size_bytes"],
            r["algorithm"],
            r["predicted_s"],
            r["messages"],
            samples_s=r["samples_s"],
        )
        for r in document["rows"]
    ]
    finish_rows(rows)
    return rows


def size_verdicts(rows: Iterable[Row]) -> list[SizeVerdict]:
    """Per (collective, size) with at least one measured algorithm: the best of each ordering,
    whether the predicted best is within 10% of the measured best, and Kendall's tau-b. When
    several predictions tie for the best (within TIE_TOLERANCE), the predicted best's measured
    time is the median of theirs."""
    groups: dict[tuple[str, int], list[Row]] = {}
    for row in rows:
        if row.measured_s is not None:
            groups.setdefault((row.collective, row.size_bytes), []).append(row)
    verdicts = []
    for (collective, size), group in groups.items():
        fastest = min(r.predicted_s for r in group)
        tied = [r for r in group if r.predicted_s <= fastest * (1 + TIE_TOLERANCE)]
        # Tied predictions: what following the simulator gets is any of them, their median.
        picked_s = statistics.median(r.measured_s for r in tied if r.measured_s is not None)
        measured_best = min(group, key=lambda r: r.measured_s or math.inf)
        assert measured_best.measured_s is not None
        verdicts.append(
            SizeVerdict(
                collective=collective,
                size_bytes=size,
                algorithms=len(group),
                predicted_best="=".join(r.algorithm for r in tied),
                measured_best=measured_best.algorithm,
                predicted_best_measured_s=picked_s,
                measured_best_s=measured_best.measured_s,
                best_within_10pct=picked_s <= (1 + BEST_TOLERANCE) * measured_best.measured_s,
                kendall_tau=kendall_tau_b(
                    [r.predicted_s for r in group], [r.measured_s for r in group]
                ),
            )
        )
    return verdicts


def summarize(rows: Sequence[Row], verdicts: Sequence[SizeVerdict]) -> dict[str, Any]:
    """The median |error| over rows, the fraction of sizes whose predicted best is within 10%,
    and the median tau over sizes where it is defined (None where there is nothing)."""
    errors = [abs(r.error) for r in rows if r.error is not None]
    taus = [v.kendall_tau for v in verdicts if v.kendall_tau is not None]
    within = sum(v.best_within_10pct for v in verdicts)
    return {
        "rows": len(errors),
        "median_abs_error": statistics.median(errors) if errors else None,
        "sizes": len(verdicts),
        "sizes_best_within_10pct": within,
        "fraction_best_within_10pct": within / len(verdicts) if verdicts else None,
        "median_kendall_tau": statistics.median(taus) if taus else None,
    }


@dataclass
class Validation:
    machine: str
    machine_file: str
    topology: str
    ranks: int
    repetitions: int  # the least samples per row
    warmup: int
    estimate_s: float
    max_repetitions: int = 0  # the most samples per row
    precision: float = DEFAULT_PRECISION
    elapsed_s: float = 0.0
    rows: list[Row] = field(default_factory=list)
    verdicts: list[SizeVerdict] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["format"] = "topocoll-validation/1"
        return out


class Refused(InputError):
    """The run is estimated beyond the time limit (one line with the estimate)."""


def machine_prediction(path: str) -> tuple[Any, Callable[..., tuple[float, int]]]:
    """(the loaded machine, predict(collective, algorithm, size, ranks) -> (seconds, messages)):
    the simulator on the machine's topology with every term of the machine file, reductions at
    the rate of the runtime's MPI_INT."""
    loaded = machine.load_machine(path)
    if not loaded.topology:
        raise InputError(
            f'--machine {path} states no topology; accepted: a machine file with "topology" '
            "(topocoll calibrate writes one)"
        )

    def predict(collective: str, algorithm: str, size: int, ranks: int) -> tuple[float, int]:
        result = simulation.simulate(
            None, collective, algorithm, size, ranks=ranks, machine=path, datatype=DATATYPE
        )
        return result.time_s, result.messages

    return loaded, predict


def candidate_algorithms(collective: str, chosen: Sequence[str] | None) -> list[str]:
    """The registry's algorithms of `collective` (or those of `chosen` that serve it)."""
    infos = simulation.algorithm_infos()
    if chosen:
        unknown = [a for a in chosen if a not in infos]
        if unknown:
            raise InputError(
                f"--algorithms: unknown {', '.join(unknown)}; accepted: {', '.join(sorted(infos))}"
            )
        return [a for a in chosen if collective in infos[a]["collectives"]]
    return sorted(name for name, info in infos.items() if collective in info["collectives"])


def estimate_seconds(rows: Sequence[Row], ranks: int, repetitions: int, warmup: int) -> float:
    """A rough wall time of the measurements: each call runs warmup + 1 collectives of at most
    SLOWDOWN times the predicted time, a barrier and the data's setup."""
    total = 0.0
    for row in rows:
        per_call = (warmup + STEADY_CALLS) * (SLOWDOWN * row.predicted_s + CALL_OVERHEAD_S)
        per_call += ELEMENT_COST_S * (row.size_bytes / ELEMENT_BYTES) * ranks
        total += repetitions * per_call
    return total


def predict_all(
    predict: Callable[..., tuple[float, int]],
    collectives: Sequence[str],
    sizes: Sequence[int],
    algorithms: Sequence[str] | None,
    ranks: int,
) -> tuple[str, list[Row], list[dict[str, Any]]]:
    """(rows with predictions, skipped) for every collective, size and algorithm the simulator
    runs at `ranks`."""
    rows: list[Row] = []
    skipped: list[dict[str, Any]] = []
    for collective in collectives:
        for algorithm in candidate_algorithms(collective, algorithms):
            for size in sizes:
                nbytes = runtime_bytes(collective, size, ranks)
                if nbytes == 0:
                    skipped.append(_skip(collective, algorithm, size, "no whole element per rank"))
                    continue
                try:
                    predicted, messages = predict(collective, algorithm, nbytes, ranks)
                except ValueError as error:
                    reason = "simulator: " + str(error).splitlines()[0]
                    skipped.append(_skip(collective, algorithm, size, reason))
                    continue
                rows.append(Row(collective, nbytes, algorithm, predicted, messages))
    return rows, skipped


def _skip(collective: str, algorithm: str, size: int, reason: str) -> dict[str, Any]:
    return {"collective": collective, "algorithm": algorithm, "size_bytes": size, "reason": reason}


def measure_all(
    comm: Any,
    rows: Sequence[Row],
    repetitions: Repetitions,
    warmup: int,
    skipped: list[dict[str, Any]],
    wrong: list[str],
    progress: Callable[[str], None] | None = None,
    measure: Callable[..., list[float]] = calibration.measure_collective,
) -> None:
    """Measures every row with the runtime (`measure`, calibration.measure_collective's
    signature), interleaved: per (collective, size), rounds of one sample of each row, in
    order, while `repetitions` wants more of any of them. Every row of a size takes every round:
    a row that stopped early would keep the machine's state of its first rounds (on the 2-core
    VM the medians of one row's first and last 15 of 300 samples differed by up to 1.9 times).
    An algorithm the runtime does not serve at that size is skipped (with the runtime's
    reason); a wrong result is recorded in `wrong`. Collective: every rank gets the same
    samples, so every rank takes the same rounds."""
    groups: dict[tuple[str, int], list[Row]] = {}
    for row in rows:
        groups.setdefault((row.collective, row.size_bytes), []).append(row)
    for (collective, size), group in groups.items():
        if progress:
            progress(f"measuring {collective} at {size} B: {len(group)} algorithms")
        active = list(group)
        while any(repetitions.more_needed(row.samples_s) for row in active):
            for row in list(active):
                try:
                    calls = measure(
                        comm, RUNTIME_COLLECTIVES[collective], row.algorithm, size,
                        STEADY_CALLS, warmup,
                    )  # fmt: skip
                    row.samples_s.append(statistics.median(calls))
                except calibration.WrongResult as error:
                    wrong.append(str(error))
                    active.remove(row)
                    row.samples_s.clear()
                except calibration.CalibrationError as error:
                    skipped.append(_skip(collective, row.algorithm, size, "runtime: " + str(error)))
                    active.remove(row)
                    row.samples_s.clear()


def validate(
    comm: Any,
    machine_file: str,
    *,
    collectives: Sequence[str] = DEFAULT_COLLECTIVES,
    sizes: Sequence[int] | None = None,
    algorithms: Sequence[str] | None = None,
    repetitions: int = 10,
    max_repetitions: int | None = None,
    precision: float = DEFAULT_PRECISION,
    warmup: int = 1,
    max_seconds: float = 600.0,
    force: bool = False,
    progress: Callable[[str], None] | None = None,
) -> Validation:
    """Predicts and measures (see the module's doc); collective over `comm`, every rank gets
    the result. Rank 0 simulates and sends the predictions. Each row takes `repetitions`
    samples, and the rows of a size take more, up to `max_repetitions` (None: as many as
    `repetitions`), while the median of any of them is less precise than `precision`
    (Repetitions, measure_all). Raises Refused (an InputError) when the
    measurements are estimated beyond `max_seconds` and not `force`, InputError for a bad
    machine file, collective, algorithm or repetition count."""
    start = time.monotonic()
    ranks = comm.Get_size()
    plan = Repetitions(repetitions, max_repetitions or repetitions, precision)
    if plan.most < plan.least:
        raise InputError(
            f"--max-repetitions {plan.most} is below --repetitions {plan.least}; accepted: "
            "a count of at least --repetitions"
        )
    for collective in collectives:
        if collective not in RUNTIME_COLLECTIVES:
            raise InputError(
                f"collective '{collective}' is not timed by the runtime; accepted: "
                + ", ".join(RUNTIME_COLLECTIVES)
            )
    size_list = list(sizes) if sizes is not None else size_range(DEFAULT_SIZES)
    planned: tuple | None = None
    if comm.Get_rank() == 0:
        try:
            loaded, predict = machine_prediction(machine_file)
            planned = (
                "ok",
                (loaded.name, loaded.topology),
                *predict_all(predict, collectives, size_list, algorithms, ranks),
            )
        except ValueError as error:
            planned = ("error", str(error))
    planned = comm.bcast(planned, root=0)
    if planned[0] == "error":
        raise InputError(planned[1])
    _, (name, topology), rows, skipped = planned
    if not rows:
        first = skipped[0]["reason"] if skipped else "no algorithm serves these collectives"
        raise InputError(f"nothing to validate at {ranks} ranks: {first}")
    # The most samples every row may take: the refusal's bound holds whatever the precision.
    estimate = estimate_seconds(rows, ranks, plan.most, warmup)
    if estimate > max_seconds and not force:
        raise Refused(
            f"the measurements are estimated at {estimate:.0f} s, beyond --max-seconds "
            f"{max_seconds:g}; accepted: fewer sizes, algorithms or --repetitions, or --force"
        )
    result = Validation(
        machine=name,
        machine_file=machine_file,
        topology=topology,
        ranks=ranks,
        repetitions=plan.least,
        warmup=warmup,
        estimate_s=estimate,
        max_repetitions=plan.most,
        precision=plan.precision,
        skipped=skipped,
    )
    measure_all(comm, rows, plan, warmup, result.skipped, result.wrong, progress)
    finish_rows(rows)
    result.rows = [r for r in rows if r.measured_s is not None]
    result.verdicts = size_verdicts(result.rows)
    result.summary = summarize(result.rows, result.verdicts)
    result.elapsed_s = time.monotonic() - start
    return result

"""The frame every experiment runs in: its scale, its output folder, the claims of its paper
(data in claims/*.json) and the verdict it writes beside its CSV and PNG."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from topocoll.comparison import compare
from topocoll.errors import InputError
from topocoll.parallel import broadcast, spread_over_ranks
from topocoll.simulation import SimResult, simulate

from .journal import UnitJournal

SCALES = ("small", "paper")

# A large vector whose size every bandwidth-bound table's runs divide into equal blocks (their
# block counts, ranks times ports, are 2^a x 3^b with a <= 15 and b <= 10: 2^15 on 8^4 with 8
# ports, 2^13 x 3 on 16^3 with 6, 2 x 3^10 on 27^3), so that the flow model's translation
# symmetry applies (docs/simulator-engines.md, "Symmetry"). At 1 GiB the blocks of 3D and
# ternary tori are unequal and their runs are not reduced: Swing's Table 2 on 16^3 took 13.7 s
# at 1 GiB and 1.2 s at this size (2026-11-30). The tables' limits hold at any large size.
EQUAL_BLOCKS_BYTES = 2**15 * 3**10  # 1.8 GiB


def _times_per_size(values: object, sizes: int) -> bool:
    """Whether `values` is what a sweep returns: one positive, finite time per size."""
    return (
        isinstance(values, list)
        and len(values) == sizes
        and all(
            isinstance(t, int | float) and not isinstance(t, bool) and math.isfinite(t) and t > 0
            for t in values
        )
    )


def zero_latency_time(
    topology: str, algorithm: str, size: int | str = "1GiB", **extra
) -> tuple[float, SimResult]:
    """The flow model's allreduce time with every latency and per-step overhead at zero: the
    bandwidth term the papers' deficiency tables model (Swing and Trivance Table 2)."""
    r = simulate(topology, "allreduce", algorithm, size, latency="0ns", hop_latency="0ns",
                 alpha="0ns", force=True, **extra)  # fmt: skip
    return r.time_s, r


@dataclass
class Context:
    scale: str
    jobs: int
    out: Path  # this experiment's folder (on MPI ranks other than 0: a scratch copy)
    world: tuple | None = None  # (comm, rank, size) under mpirun with several processes
    machine: str | None = None  # reproduce --machine: replaces every experiment's machine file
    runs: Path | None = None  # reproduce --from-runs: stored runs a summary reads, not reruns
    journal: UnitJournal | None = None  # the finished units, kept for reproduce --resume

    def machine_for(self, paper_machine: str) -> str:
        """The machine an experiment runs on: its paper's machine file (a name of
        python/topocoll/machines/), unless --machine replaces it."""
        return self.machine or paper_machine

    @property
    def paper(self) -> bool:
        return self.scale == "paper"

    def map(self, run: Callable, items: Iterable) -> list:
        """[run(item) for item in items], the items spread over the MPI ranks and, within a
        rank's share, over --jobs threads (the simulator releases the GIL while it runs, as
        `innet --jobs` relies on); the results on every rank in item order."""
        items = list(items)
        if self.journal is None:
            return spread_over_ranks(items, self._run_share(run), self.world, everywhere=True)
        # Units an earlier run of this experiment finished (reproduce --resume) are not run
        # again; each unit this run finishes is written down as it finishes.
        journal = self.journal
        call = journal.next_call()
        keys = [f"{call}:{item!r}" for item in items]
        todo = [(key, item) for key, item in zip(keys, items, strict=True)
                if key not in journal.done]  # fmt: skip

        def run_kept(unit: tuple) -> object:
            value = run(unit[1])
            journal.record(unit[0], value)
            return value

        fresh = iter(spread_over_ranks(todo, self._run_share(run_kept), self.world,
                                       everywhere=True))  # fmt: skip
        return [journal.done[key] if key in journal.done else next(fresh) for key in keys]

    def _run_share(self, run: Callable) -> Callable[[list], list]:
        def run_share(share: list) -> list:
            if self.jobs <= 1 or len(share) <= 1:
                return [run(item) for item in share]
            with ThreadPoolExecutor(max_workers=min(self.jobs, len(share))) as pool:
                return list(pool.map(run, share))

        return run_share

    def map_sizes(self, run: Callable, groups: list, sizes_of: Callable) -> dict:
        """`run(group)` gives one time per size of `sizes_of(group)`, in that order (all of a
        group's sizes on one network, `simulation.simulate_sizes`); the groups spread as `map`
        spreads items. The times by (*group, size)."""
        times = {}
        for group, values in zip(groups, self.map(run, groups), strict=True):
            sizes = sizes_of(group)
            if not _times_per_size(values, len(sizes)):  # a journal edited
                where = self.journal.folder if self.journal else "the run"
                raise InputError(
                    f"--resume: the unit {group!r} in {where} has no time per size "
                    f"({len(sizes)} positive numbers); accepted: units as reproduce writes "
                    "them, or run without --resume to start afresh"
                )
            times.update({(*group, size): t for size, t in zip(sizes, values, strict=True)})
        return times

    def compare(self, topology: str, collective: str, **options):
        """`topocoll.compare` with this run's --jobs, its cases spread over the MPI ranks; the
        comparison on every rank."""
        c = compare(topology, collective, jobs=self.jobs, use_mpi=self.world is not None,
                    **options)  # fmt: skip
        return broadcast(c, self.world)


@dataclass
class Experiment:
    name: str
    paper: str  # the claims file's stem: swing, trivance, cm200, canary, bine
    figure: str  # "Table 2", "Fig. 6", ...
    run: Callable[[Context], dict]  # returns the results the claims' keys name
    estimate_s: dict[str, float] = field(default_factory=dict)  # per scale, measured
    what: str = ""
    # The experiments whose stored results it can summarise instead of rerunning their
    # simulations (reproduce --from-runs); () for the others
    summarises: tuple[str, ...] = ()


def load_claims(paper: str) -> dict:
    text = resources.files("topocoll.reproduce").joinpath("claims", f"{paper}.json").read_text()
    return json.loads(text)


def claims_of(experiment: Experiment) -> list[dict]:
    return [
        c for c in load_claims(experiment.paper)["claims"] if c["experiment"] == experiment.name
    ]


# The one reading of "best", "win" and "crossover" for every paper (the Bine paper's rule,
# section 5.1): an algorithm wins when it is more than 1% faster, loses when the other is more
# than 1% faster; anything closer is a tie.
TIE = 0.01


def is_win(ours: float, theirs: float) -> bool:
    """Whether time `ours` beats time `theirs`: theirs more than 1% longer."""
    return theirs > ours * (1 + TIE)


def is_loss(ours: float, theirs: float) -> bool:
    """Whether time `ours` loses to time `theirs`: ours more than 1% longer."""
    return is_win(theirs, ours)


def gain_wins(gain: float) -> bool:
    """`gain` = their time / ours (a goodput ratio, ours over theirs): a win by the one rule."""
    return is_win(1.0, gain)


def gain_loses(gain: float) -> bool:
    """`gain` = their time / ours: a loss by the one rule (below 1/1.01, not 0.99)."""
    return is_loss(1.0, gain)


def win_loss_percent(gains: Iterable[float]) -> tuple[float, float]:
    """(win %, loss %) over the cases' gains (their time / ours), ties in neither."""
    gains = list(gains)
    if not gains:
        return float("nan"), float("nan")
    wins = sum(gain_wins(g) for g in gains)
    losses = sum(gain_loses(g) for g in gains)
    return 100.0 * wins / len(gains), 100.0 * losses / len(gains)


def crossover(sizes: Iterable[float], gains: Iterable[float | None]) -> float:
    """The one crossover reading: the largest size after which the algorithm loses at every
    larger size (its "best up to" point), with `gains` (their time / ours) per size. A tie or a
    loss followed by a win does not end it; 0 if it loses at every size, the largest size if it
    does not lose at the largest. A size without a gain (None, NaN) counts as a loss."""
    points = sorted(zip(sizes, gains, strict=True))
    last = 0.0
    for size, gain in points:
        if gain is not None and not math.isnan(gain) and not gain_loses(gain):
            last = size
    return last


def first_loss_after_crossover(sizes: Iterable[float], gains: Iterable[float | None]) -> float:
    """The smallest size of the final run of losses (the size "from which" the others win),
    NaN if the algorithm does not lose at the largest size."""
    points = sorted(zip(sizes, gains, strict=True))
    cross = crossover([s for s, _ in points], [g for _, g in points])
    after = [s for s, _ in points if s > cross]
    return after[0] if after else float("nan")


def trend(values: Iterable[float]) -> int:
    """+1 if the values grow (the last more than 1% above the first, no step down by more than
    1%), -1 if they shrink (mirrored), 0 otherwise: "grows with", "shrinks with" claims."""
    v = list(values)
    if len(v) < 2:
        return 0
    if is_win(v[0], v[-1]) and not any(is_win(b, a) for a, b in zip(v, v[1:], strict=False)):
        return 1
    if is_win(v[-1], v[0]) and not any(is_win(a, b) for a, b in zip(v, v[1:], strict=False)):
        return -1
    return 0


# Default tolerances where a paper states no variability of its own (none of the five does):
# a wider one needs its reason in the claim's note.
DEFAULT_TOLERANCE = {"ratio": {"rel": 0.1}, "percent": {"abs": 10.0}, "crossover": {"steps": 1}}
KINDS = ("performance", "closed-form")


def claim_kind(claim: dict) -> str:
    """performance (a time, goodput, crossover or win rate the paper measured) or closed-form
    (steps, bytes, deficiencies, exactness: counts a schedule fixes). Unmarked: performance."""
    return claim.get("kind", "performance")


def judge(claim: dict, ours, scale: str) -> str:
    """agree / differ against the claim's tolerance; claims about the paper's sizes only are
    'not judged at small scale' there (the small run uses smaller shapes). Relations: equal
    (abs/rel tolerance), at_least / at_most (abs/rel), sign, wins / loses (ours is a gain, their
    time over ours, judged by the one tie rule), crossover (sizes; tolerance in size steps of
    a factor 2), trend (+1 grows, -1 shrinks, 0 neither: exact)."""
    if claim.get("scale") == "paper" and scale != "paper":
        return "not judged at small scale"
    if ours is None or (isinstance(ours, float) and math.isnan(ours)):
        return "differ"
    value, tol = claim["value"], claim.get("tolerance", {})
    relation = claim.get("relation", "equal")
    bound = tol.get("abs", 0.0) + tol.get("rel", 0.0) * abs(value) if relation != "trend" else 0
    ok = {
        "at_least": lambda: ours >= value - bound - 1e-12,
        "at_most": lambda: ours <= value + bound + 1e-12,
        "sign": lambda: (ours > 0) == (value > 0),  # same sign as the paper's value
        "wins": lambda: gain_wins(ours),
        "loses": lambda: gain_loses(ours),
        "trend": lambda: ours == value,
        "crossover": lambda: same_size_step(ours, value, tol.get("steps", 0)),
    }.get(relation)
    if ok is not None:
        return "agree" if ok() else "differ"
    return "agree" if abs(ours - value) <= bound + 1e-12 else "differ"


def same_size_step(ours: float, value: float, steps: float) -> bool:
    """Whether two crossover sizes lie within `steps` doublings (0: the algorithm is never
    best, which only 0 matches)."""
    if ours <= 0 or value <= 0:
        return ours == value
    return abs(math.log2(ours / value)) <= steps + 1e-9


FORMULA_NAMES = {"log2": math.log2, "log3": lambda x: math.log(x, 3), "sqrt": math.sqrt}


def claim_value(claim: dict, results: dict) -> dict:
    """A claim whose value is a closed form in n (Trivance Table 1) is evaluated at the n the
    experiment ran (results[claim["n_key"]]); the formula is data, evaluated without builtins."""
    if "formula" not in claim:
        return claim
    n = results.get(claim["n_key"])
    if n is None:
        return {**claim, "value": float("nan")}
    value = eval(claim["formula"], {"__builtins__": {}}, {**FORMULA_NAMES, "n": n})  # noqa: S307
    return {**claim, "value": round(float(value), 4)}


def verdict(experiment: Experiment, results: dict, ctx: Context, seconds: float) -> dict:
    rows = []
    for claim in claims_of(experiment):
        claim = claim_value(claim, results)
        ours = results.get(claim["key"])
        rows.append(
            {
                "id": claim["id"],
                "where": claim["where"],
                "claim": claim["claim"],
                "paper": claim["value"],
                "unit": claim.get("unit", ""),
                "relation": claim.get("relation", "equal"),
                "tolerance": claim.get("tolerance", {}),
                "ours": ours,
                "key": claim["key"],
                "verdict": judge(claim, ours, ctx.scale),
                "kind": claim_kind(claim),
                "note": claim.get("note", ""),
            }
        )
    made_from = {} if ctx.runs is None else {"from_runs": str(ctx.runs)}
    return {
        "experiment": experiment.name,
        "paper": experiment.paper,
        "figure": experiment.figure,
        "scale": ctx.scale,
        "seconds": round(seconds, 2),
        **made_from,
        "claims": rows,
        "agree": sum(r["verdict"] == "agree" for r in rows),
        "differ": sum(r["verdict"] == "differ" for r in rows),
        "by_kind": count_by_kind(rows),
    }


def count_by_kind(rows: Iterable[dict]) -> dict[str, dict[str, int]]:
    """Per kind of claim (performance, closed-form): claims, agree, differ, not judged."""
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        k = out.setdefault(r.get("kind", "performance"),
                           {"claims": 0, "agree": 0, "differ": 0, "not judged": 0})  # fmt: skip
        k["claims"] += 1
        k[r["verdict"] if r["verdict"] in ("agree", "differ") else "not judged"] += 1
    return out


def write_csv(path: Path, rows: list[dict]) -> None:
    if not rows:
        path.write_text("")
        return
    keys: list[str] = []
    for row in rows:
        keys += [k for k in row if k not in keys]
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)


def grid_dims(topology: str) -> list[int]:
    """The grid shape torus algorithms get on a torus, ring, HyperX or HammingMesh spec
    (`hammingmesh:AxB:XxY` is an (A·X) x (B·Y) grid, docs/simulator.md)."""
    kind, *fields = topology.split(":")
    dims = [int(x) for x in fields[0].split("x")]
    if kind == "hammingmesh":
        grid = [int(x) for x in fields[1].split("x")]
        return [d * g for d, g in zip(dims, grid, strict=True)]
    return dims


def accepted(topology: str, algorithm: str, collective: str = "allreduce") -> bool:
    """Whether the algorithm builds on this grid (the figures skip it elsewhere)."""
    from topocoll import _core

    dims = grid_dims(topology)
    try:
        _core.build(algorithm, collective, math.prod(dims), dims, 0, 0)
    except ValueError:
        return False
    return True


def size_label(size: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return f"{size >> shift}{unit}"
    return f"{size}B"

"""`topocoll.compare` (the function): every algorithm (or a list) of a collective at every size of a
range, on one network; per size the best run, each family's best variant, and the gain of the
best paper algorithm over the best baseline (the inset of swing-nsdi24.txt Fig. 6). Runs spread
over local processes (`jobs`) and MPI ranks (mpirun with mpi4py) and are merged by (size,
algorithm), so the result does not depend on how they were spread."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from topocoll import _core, limits, parameters
from topocoll.collectives import CHUNKED
from topocoll.errors import InputError
from topocoll.parallel import MAX_JOBS, mpi_world, process_map, spread_over_ranks
from topocoll.simulation import (
    Network,
    Setup,
    SimResult,
    algorithm_infos,
    is_baseline,
    make_setup,
    origin,
    parse_size,
)


@dataclass
class CompareRow:
    """One algorithm (kind "algorithm") or a family's best variant (kind "best-of") at a size."""

    size_bytes: int
    algorithm: str
    family: str
    kind: str
    paper: bool
    time_s: float
    goodput_gbps: float
    peak_percent: float
    messages: int
    best: bool = False
    chosen: str = ""  # best-of rows: the variant that won
    # algorithm rows: paper, variant (topocoll's own), baseline or file (simulation.origin)
    origin: str = ""


@dataclass
class SizeSummary:
    size_bytes: int
    best: str
    best_time_s: float
    best_goodput_gbps: float
    best_paper: str | None
    best_paper_goodput_gbps: float | None
    best_baseline: str | None
    best_baseline_goodput_gbps: float | None
    gain: float | None  # goodput of the best paper algorithm / that of the best baseline
    best_variant: str | None = None  # the best of topocoll's own variants
    best_variant_goodput_gbps: float | None = None


@dataclass
class Comparison:
    topology: str
    collective: str
    model: str
    routing: str
    ranks: int
    peak_goodput_gbps: float
    algorithms: list[str]
    skipped: dict[str, str]
    sizes: list[int]
    entries: list[CompareRow]
    summary: list[SizeSummary]
    skipped_sizes: list[int] = field(default_factory=list)  # below P for chunked collectives
    global_load: float = 0.0  # --global-load of every run (0: the job alone)
    # compare(prune=True): the baseline runs skipped because they cannot be the best, each
    # with its lower bound and the baseline whose time it exceeds (no rows for them)
    pruned: list[dict] = field(default_factory=list)
    machine: str = ""  # the machine file's name when one gave the parameters

    def rows(self) -> list[dict]:
        """One dict per (size, algorithm) and per (size, family best-of); a `global_load`
        column only when the runs had one."""
        common = {"topology": self.topology, "collective": self.collective, "model": self.model}
        if self.global_load:
            common["global_load"] = self.global_load
        if self.machine:
            common["machine"] = self.machine
        return [{**common, **asdict(e)} for e in self.entries]

    to_rows = rows

    def summary_rows(self) -> list[dict]:
        return [asdict(s) for s in self.summary]

    def to_dict(self) -> dict:
        return {
            "topology": self.topology,
            "collective": self.collective,
            "model": self.model,
            "routing": self.routing,
            "ranks": self.ranks,
            "peak_goodput_gbps": self.peak_goodput_gbps,
            "algorithms": self.algorithms,
            "skipped": self.skipped,
            "sizes": self.sizes,
            "rows": [asdict(e) for e in self.entries],
            "summary": self.summary_rows(),
            "skipped_sizes": self.skipped_sizes,
            "global_load": self.global_load,
            "pruned": self.pruned,
            **({"machine": self.machine} if self.machine else {}),
        }


def size_range(text: str) -> list[int]:
    """`32B:512MiB` -> the powers of two from 32 to 512 MiB; `A,B,C` -> those sizes; `S` -> [S]."""
    if ":" in text:
        low_text, high_text = text.split(":", 1)
        low, high = parse_size(low_text), parse_size(high_text)
        if low > high:
            raise InputError(
                f"sizes '{text}': the lower bound exceeds the upper; accepted: LOW:HIGH"
            )
        sizes, power = [], 1
        while power <= high:
            if power >= low:
                sizes.append(power)
            power *= 2
        if not sizes:
            raise InputError(f"sizes '{text}' hold no power of two; accepted: e.g. 32B:512MiB")
        return sizes
    return sorted(
        {parse_size(part) for part in text.split(",") if part.strip()} or {parse_size(text)}
    )


def _family_label(family: str, members: list[str]) -> str:
    """`swing (best of lat/bw)`: the members' common name prefix and their differing parts, or
    the family and a count when that would be long."""
    parts = [m.split("-") for m in members]
    common = 0
    while all(len(p) > common + 1 and p[common] == parts[0][common] for p in parts):
        common += 1
    if common:
        suffixes = ["-".join(p[common:]) for p in parts]
        label = f"{'-'.join(parts[0][:common])} (best of {'/'.join(suffixes)})"
        if len(label) <= 40:
            return label
    return f"{family} (best of {len(members)})"


def _best(results: Iterable[SimResult]) -> SimResult | None:
    best = None
    for r in results:  # ties keep the first in algorithm order: deterministic
        if best is None or r.time_s < best.time_s:
            best = r
    return best


def summarize(
    algorithms: list[str], sizes: list[int], results: dict[tuple[int, str], SimResult]
) -> tuple[list[CompareRow], list[SizeSummary]]:
    """The table of a comparison from its runs, keyed by (size index, algorithm); a pruned run
    (compare(prune=True)) is absent and has no row."""
    infos = algorithm_infos()
    families: dict[str, list[str]] = {}
    for a in algorithms:  # schedule files (file:NAME) form the family "file"
        families.setdefault(infos[a]["family"] if a in infos else "file", []).append(a)
    entries: list[CompareRow] = []
    summary: list[SizeSummary] = []
    for i in range(len(sizes)):
        runs = [results[(i, a)] for a in algorithms if (i, a) in results]
        best = _best(runs)
        # Schedule files are neither the papers' algorithms nor baselines, and topocoll's own
        # variants are not the papers': each has its own column.
        paper = _best(r for r in runs if origin(r.algorithm) == "paper")
        variant = _best(r for r in runs if origin(r.algorithm) == "variant")
        base = _best(r for r in runs if origin(r.algorithm) == "baseline")
        for r in runs:
            entries.append(
                CompareRow(
                    size_bytes=r.size_bytes,
                    algorithm=r.algorithm,
                    family=r.family,
                    kind="algorithm",
                    paper=origin(r.algorithm) == "paper",
                    time_s=r.time_s,
                    goodput_gbps=r.goodput_gbps,
                    peak_percent=r.peak_percent,
                    messages=r.messages,
                    best=r is best,
                    origin=origin(r.algorithm),
                )
            )
        for family, members in families.items():
            winner = _best(results[(i, a)] for a in members if (i, a) in results)
            if len(members) < 2 or winner is None:
                continue
            entries.append(
                CompareRow(
                    size_bytes=winner.size_bytes,
                    algorithm=_family_label(family, members),
                    family=family,
                    kind="best-of",
                    paper=not all(is_baseline(a) for a in members),
                    time_s=winner.time_s,
                    goodput_gbps=winner.goodput_gbps,
                    peak_percent=winner.peak_percent,
                    messages=winner.messages,
                    chosen=winner.algorithm,
                )
            )
        gain = None
        if paper and base and base.goodput_gbps > 0:
            gain = paper.goodput_gbps / base.goodput_gbps
        summary.append(
            SizeSummary(
                size_bytes=best.size_bytes,
                best=best.algorithm,
                best_time_s=best.time_s,
                best_goodput_gbps=best.goodput_gbps,
                best_paper=paper.algorithm if paper else None,
                best_paper_goodput_gbps=paper.goodput_gbps if paper else None,
                best_baseline=base.algorithm if base else None,
                best_baseline_goodput_gbps=base.goodput_gbps if base else None,
                gain=gain,
                best_variant=variant.algorithm if variant else None,
                best_variant_goodput_gbps=variant.goodput_gbps if variant else None,
            )
        )
    return entries, summary


def select_algorithms(
    network: Network, requested: str | Sequence[str] | None
) -> tuple[list[str], dict[str, str]]:
    """The algorithms to compare and the ones skipped with their reasons. `all` (or None): every
    algorithm implementing the collective that fits the topology; an explicit list must fit."""
    infos = algorithm_infos()
    collective = network.setup.collective
    if requested == "none" and network.setup.schedule_files:
        return [], {}  # the schedule files only
    if requested is not None and not isinstance(requested, (str, Sequence)):
        raise TypeError(
            f"algorithms must be 'all', 'A,B,...' or a list of names, not "
            f"{type(requested).__name__}"
        )
    if requested is None or requested == "all" or list(requested) == ["all"]:
        chosen, skipped = [], {}
        for name, info in infos.items():
            if collective not in info["collectives"]:
                continue
            try:
                network.schedule(name)
                chosen.append(name)
            except ValueError as error:
                skipped[name] = str(error)
        if not chosen:
            raise InputError(f"no algorithm implements {collective} on {network.setup.topology}")
        return chosen, skipped
    if isinstance(requested, str):
        names = requested.split(",")
    else:
        names = [parameters.text("an algorithm", name) for name in requested]
    names = [n.strip() for n in names if n.strip()]
    if not names:
        raise InputError("--algorithms is empty; accepted: a comma-separated list or all")
    for n in names:
        network.schedule(n)  # raises, naming the reason, for one that does not fit
    return list(dict.fromkeys(names)), {}


# Worker processes keep one Network (topology, router, schedules) for the whole sweep.
_worker_network: Network | None = None


def _worker_init(setup: Setup) -> None:
    global _worker_network
    _worker_network = Network(setup)


def _worker_run(task: tuple[int, str, int]) -> tuple[int, str, SimResult]:
    index, algorithm, size = task
    assert _worker_network is not None
    return index, algorithm, _lean(_worker_network.run(algorithm, size))


def _lean(result: SimResult) -> SimResult:
    """A comparison keeps the totals, not the per-rank finish times."""
    result.rank_finish_s = []
    return result


def _run_tasks(
    setup: Setup,
    network: Network,
    tasks: list[tuple[int, str, int]],
    jobs: int,
    progress: Callable[[], None] | None,
) -> list[tuple[int, str, SimResult]]:
    if jobs <= 1 or len(tasks) <= 1:
        out = []
        for index, algorithm, size in tasks:
            out.append((index, algorithm, _lean(network.run(algorithm, size))))
            if progress:
                progress()
        return out
    # Largest sizes first so that the long runs do not end the sweep alone.
    return process_map(
        _worker_run, tasks, jobs, _worker_init, (setup,), first=lambda t: -t[2], progress=progress
    )


def _sweep(network: Network, algorithm: str, sizes: list[int], search: bool):
    """(seconds, memory, search seconds, whether the search can run in the estimate) of one
    algorithm over the sizes. A run's counts do not depend on its size except for the packet
    model's packets, so the algorithm is estimated at the smallest and the largest size and the
    sizes between are interpolated; the symmetry search is paid once."""
    estimates = [network.estimate(algorithm, s, search=search) for s in (sizes[0], sizes[-1])]
    low, high = (
        network.cost(algorithm, s, e) for s, e in zip((sizes[0], sizes[-1]), estimates, strict=True)
    )
    searchable = all(
        e["rank_steps"] + e["messages"] <= _core.ESTIMATE_SYMMETRY_WORK for e in estimates
    )
    span = sizes[-1] - sizes[0]
    seconds = 0.0
    for size in sizes:
        share = (size - sizes[0]) / span if span else 1.0
        run = low.seconds - low.search_seconds
        seconds += run + (high.seconds - high.search_seconds - run) * share
    search_seconds = max(low.search_seconds, high.search_seconds)
    memory = max(low.memory_bytes, high.memory_bytes)
    return seconds + search_seconds, memory, search_seconds, searchable


def comparison_cost(
    network: Network, algorithms: list[str], sizes: list[int], workers: int
) -> limits.SimulationCost:
    """What the runs of a comparison will cost together: CPU seconds over the workers, and the
    memory of the largest run in each worker. First without the flow model's symmetry search
    (quick, and long for the runs it would reduce); if that is beyond the limit, the costliest
    algorithms are estimated again with the search until the answer is clear."""
    quick = {a: _sweep(network, a, sizes, search=False) for a in algorithms}
    seconds = {a: quick[a][0] for a in algorithms}
    open_ = {a for a in algorithms if quick[a][2] > 0 and quick[a][3]}  # a search may lower
    limit = limits.TIME_LIMIT_S * workers
    for algorithm in sorted(open_, key=seconds.get, reverse=True):
        if sum(seconds.values()) <= limit:
            break
        # At least the search itself is paid: past the limit with that, the answer is clear.
        if sum(quick[a][2] if a in open_ else seconds[a] for a in algorithms) > limit:
            break
        seconds[algorithm] = _sweep(network, algorithm, sizes, search=True)[0]
        open_.discard(algorithm)
    runs = len(algorithms) * len(sizes)
    return limits.SimulationCost(
        sum(seconds.values()) / workers,
        max(quick[a][1] for a in algorithms) * workers,
        f"{runs:,} runs: {len(algorithms)} algorithms x {len(sizes)} sizes on {workers} "
        f"process(es), {network.ranks:,} ranks",
    )


def _file_labels(schedules: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """(label, path) per schedule file: `file:NAME`, numbered where two files share a name."""
    if isinstance(schedules, str) or not isinstance(schedules, Sequence):
        raise TypeError(f"schedules must be a list of paths, not {type(schedules).__name__}")
    out: list[tuple[str, str]] = []
    for path in schedules:
        label = "file:" + Path(parameters.text("a schedule file", path)).name
        taken = {existing for existing, _ in out}
        n = 2
        while label in taken:
            label = f"file:{Path(path).name}#{n}"
            n += 1
        out.append((label, str(path)))
    return tuple(out)


def _sizes(sizes: str | Sequence[int | str]) -> list[int]:
    if isinstance(sizes, str):
        return size_range(parameters.text("sizes", sizes))
    if not isinstance(sizes, Sequence):
        raise TypeError(f"sizes must be a string or a list of sizes, not {type(sizes).__name__}")
    if not sizes:
        raise InputError("sizes is empty; accepted: LOW:HIGH, A,B,C or a list of sizes")
    return sorted({parse_size(s, "size") for s in sizes})


def _lower_bounds(network: Network, algorithms: list[str], size: int) -> dict[str, float]:
    """Each baseline's time lower bound (the same at every size: alphas and latencies)."""
    return {
        a: network.estimate(a, size, search=False)["time_lower_bound_s"]
        for a in algorithms
        if is_baseline(a)
    }


def _first_baselines(
    bounds: dict[str, float], algorithms: list[str], sizes: list[int]
) -> list[tuple[int, str, int]]:
    """Per size, the run of the baseline with the smallest lower bound (the likeliest fast one)."""
    if not bounds:
        return []
    first = min(bounds, key=lambda a: (bounds[a], algorithms.index(a)))
    return [(i, first, s) for i, s in enumerate(sizes)]


def _prune(
    bounds: dict[str, float],
    tasks: list[tuple[int, str, int]],
    done: dict[tuple[int, str], SimResult],
) -> tuple[list[tuple[int, str, int]], list[dict]]:
    """The tasks left to run and the pruned ones: a baseline whose lower bound exceeds the time
    of the baseline already run at its size."""
    ran = {i: r for (i, _), r in done.items()}
    left, pruned = [], []
    for i, a, s in tasks:
        if (i, a) in done:
            continue
        bar = ran.get(i)
        if a in bounds and bar is not None and bounds[a] > bar.time_s:
            pruned.append({"size_bytes": bar.size_bytes, "algorithm": a,
                           "lower_bound_s": bounds[a], "beaten_by": bar.algorithm,
                           "beaten_time_s": bar.time_s})  # fmt: skip
        else:
            left.append((i, a, s))
    return left, pruned


def compare(
    topology: str | None,
    collective: str,
    *,
    algorithms: str | Sequence[str] | None = "all",
    sizes: str | Sequence[int | str] = "32B:512MiB",
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    use_mpi: bool = True,
    force: bool = False,
    schedules: Sequence[str] = (),
    prune: bool = False,
    **options,
) -> Comparison | None:
    """Simulates every algorithm (or the listed ones) at every size. Runs spread over `jobs`
    local processes and, under mpirun with mpi4py, over the MPI ranks; the result does not
    depend on either. Under MPI only rank 0 returns the comparison (the others None).
    `progress(done, total)` is called after each run of this process. A comparison estimated
    beyond this machine's memory or about ten minutes raises ValueError unless `force`.
    `schedules`: paths of schedule files (JSON or MSCCL XML) run beside the algorithms, as
    `file:NAME` (`algorithms="none"` runs the files alone). `prune` (flow model): per size, the
    baseline with the smallest time lower bound runs first, and a baseline whose lower bound
    (docs/simulator.md, "Lower bound") exceeds that run's time is not run, since it can be
    neither the best nor the best baseline: the summary is that of the full comparison, the
    skipped runs have no rows and are listed in `Comparison.pruned`. `options` are those of
    `make_setup`: `machine` (a shipped name or a machine file; then `topology` may be None for
    the machine's), `datatype`, the host costs and the network options."""
    jobs = parameters.count("jobs", jobs, f"1..{MAX_JOBS}")
    if not 1 <= jobs <= MAX_JOBS:
        raise InputError(f"--jobs {jobs} out of range; accepted: 1..{MAX_JOBS}")
    force = parameters.flag("force", force)
    use_mpi = parameters.flag("use_mpi", use_mpi)
    prune = parameters.flag("prune", prune)
    if progress is not None and not callable(progress):
        raise TypeError(
            f"progress must be a function (done, total) or None, not {type(progress).__name__}"
        )
    setup = replace(
        make_setup(topology, collective, **options), schedule_files=_file_labels(schedules)
    )
    network = Network(setup)
    chosen, skipped = select_algorithms(network, algorithms)
    chosen += [label for label, _ in setup.schedule_files]
    size_list = _sizes(sizes)
    small: list[int] = []
    if collective in CHUNKED:
        small = [s for s in size_list if s < network.ranks]
        size_list = [s for s in size_list if s >= network.ranks]
        if not size_list:
            network.vector_bytes(small[-1])  # raises, naming the smallest accepted size
    tasks = [(i, a, s) for i, s in enumerate(size_list) for a in chosen]
    world = mpi_world() if use_mpi else None
    workers = min(jobs, len(tasks)) * (world[2] if world else 1)
    for algorithm in chosen:  # the limits of one run (packets) at the largest size
        network.check_limits(algorithm, size_list[-1], force=True, search=False)
    limits.check_simulation(
        comparison_cost(network, chosen, size_list, workers), force, "the comparison"
    )

    def run(share: list[tuple[int, str, int]]) -> list[tuple[int, str, SimResult]]:
        done = [0]

        def tick() -> None:
            done[0] += 1
            if progress:
                progress(done[0], len(share))

        if progress:
            progress(0, len(share))
        return _run_tasks(setup, network, share, jobs, tick)

    pruned: list[dict] = []
    results: dict[tuple[int, str], SimResult] = {}
    if prune and setup.model == "flow":
        bounds = _lower_bounds(network, chosen, size_list[-1])
        first = _first_baselines(bounds, chosen, size_list)
        done = spread_over_ranks(first, run, world, everywhere=True)
        results = {(i, a): r for i, a, r in done}
        tasks, pruned = _prune(bounds, tasks, results)
    merged = spread_over_ranks(tasks, run, world)
    if merged is None:  # an MPI rank other than 0
        return None
    results.update({(i, a): r for i, a, r in merged})
    entries, summary = summarize(chosen, size_list, results)
    first = next(iter(results.values()))
    size_of = {i: r.size_bytes for (i, _), r in results.items()}
    return Comparison(
        topology=setup.topology,
        collective=collective,
        model=setup.model,
        routing=first.routing,
        ranks=first.ranks,
        peak_goodput_gbps=first.peak_goodput_gbps,
        algorithms=chosen,
        skipped=skipped,
        sizes=[size_of[i] for i in range(len(size_list))],
        entries=entries,
        summary=summary,
        skipped_sizes=small,
        global_load=setup.global_load,
        pruned=pruned,
        machine=setup.machine,
    )

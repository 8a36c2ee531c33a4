"""`topocoll verify --all`: every registered algorithm over every supported rank count and a
list of torus shapes, summarized per algorithm and collective."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from topocoll import _core
from topocoll.collectives import ROOTED
from topocoll.shapes import format_dims, product, standard_tori

EXACT_LIMIT = 256  # ranks up to which --all uses exact mode; fingerprint above


@dataclass
class Tally:
    algorithm: str
    collective: str
    verified: int = 0
    unsupported: int = 0
    failures: list[str] = field(default_factory=list)
    largest: int = 0
    shapes: int = 0
    seconds: float = 0.0


def roots_for(collective: str, ranks: int) -> list[int]:
    if collective not in ROOTED:
        return [0]
    return sorted({0, ranks // 2, ranks - 1})


def cases(max_ranks: int) -> list[tuple[int, list[int]]]:
    """(ranks, dims) pairs: every 1D size 2..max_ranks, then the standard tori that fit."""
    out = [(p, []) for p in range(2, max_ranks + 1)]
    out += [(product(d), d) for d in standard_tori() if product(d) <= max_ranks]
    return out


def port_choices(algorithm: str, dims: list[int]) -> list[int]:
    return _core.accepted_ports(algorithm, max(1, len(dims)))


def check_case(tally: Tally, ranks: int, dims: list[int]) -> None:
    for ports in port_choices(tally.algorithm, dims):
        for root in roots_for(tally.collective, ranks):
            try:
                schedule = _core.build(tally.algorithm, tally.collective, ranks, dims, ports, root)
            except ValueError:
                tally.unsupported += 1
                continue
            exact = ranks <= EXACT_LIMIT and _core.exact_mode_fits(schedule)
            report = _core.verify(schedule, "exact" if exact else "fingerprint")
            if report["ok"]:
                tally.verified += 1
                tally.largest = max(tally.largest, ranks)
                tally.shapes += 1 if dims else 0
            else:
                shape = format_dims(dims) if dims else str(ranks)
                tally.failures.append(
                    f"{tally.algorithm} {tally.collective} P={shape} ports={ports} root={root}: "
                    f"{report['message']}"
                )


def pairs(algorithms: list[str] | None = None) -> list[tuple[dict, str]]:
    """(algorithm, collective) pairs of the sweep."""
    out = []
    for algo in _core.algorithms():
        if algorithms and algo["name"] not in algorithms:
            continue
        out += [(algo, collective) for collective in algo["collectives"]]
    return out


# Seconds the whole sweep takes at --max-ranks 64: `time topocoll verify --all --max-ranks 64`
# printed real 1m34.75s (11234 schedules, 97 pairs) on the 2-core development machine while
# other builds ran. A sweep's work grows with the cube of its largest P: each of P sizes
# verifies about P ranks x P slots.
SWEEP_SECONDS_AT_64 = 95.0


def estimated_seconds(max_ranks: int, algorithms: list[str] | None = None) -> float:
    share = len(pairs(algorithms)) / max(1, len(pairs()))
    return SWEEP_SECONDS_AT_64 * share * (max_ranks / 64) ** 3


def run(
    max_ranks: int,
    algorithms: list[str] | None = None,
    on_case: Callable[[str], None] | None = None,
) -> list[Tally]:
    """Verifies every case; `on_case(label)` is called after each (for progress)."""
    tallies = []
    for algo, collective in pairs(algorithms):
        torus = algo["requirements"]["torus"]
        tally = Tally(algo["name"], collective)
        start = time.perf_counter()
        for ranks, dims in cases(max_ranks):
            if not (dims and not torus):
                check_case(tally, ranks, dims)
            if on_case:
                on_case(f"{algo['name']} {collective} P={format_dims(dims) if dims else ranks}")
        tally.seconds = time.perf_counter() - start
        tallies.append(tally)
    return tallies


def run_with_progress(max_ranks: int, algorithms: list[str] | None = None) -> list[Tally]:
    """`run` with a progress bar on stderr."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    total = len(pairs(algorithms)) * len(cases(max_ranks))
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("verify --all", total=total)
        return run(
            max_ranks,
            algorithms,
            lambda label: progress.update(task, advance=1, description=label),
        )

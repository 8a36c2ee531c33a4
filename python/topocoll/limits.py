"""What a run will cost, checked before it starts.

The figures come from one place, `_core.estimate_verify` (src/core/verifier/estimate.cpp):
memory = ranks x slots in a block window x bytes per slot state (plus per-rank bookkeeping),
work = 4 x passes x rank-steps + 3 x ranks x slots. Here they become a yes or no: a run that
cannot fit in this machine's memory, or whose work would take longer than `TIME_LIMIT_S` at
the verifier's measured speed, stops with exit 2 and names the figure and how to proceed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from topocoll import _core
from topocoll.errors import InputError
from topocoll.units import format_bytes

# Work units per second of one verification on the development machine (2 cores, shared):
# measured 3-20M/s over ring allreduce and allgather at 4100 ranks, pairwise alltoall at 2000,
# swing-bw at 4096 and recursive doubling at 65536 (timing
# `_core.verify` against `_core.estimate_verify`); the low end, so estimates err long.
WORK_PER_SECOND = 3_000_000
# Longer runs need --force (or the Python caller's own judgement).
TIME_LIMIT_S = 600
# Share of the machine's physical memory a run may plan to use.
MEMORY_SHARE = 0.8
# Bytes of exported schedule text per rank-step (a step of two operations, as JSON or text).
EXPORT_BYTES_PER_RANK_STEP = 160
EXPORT_LIMIT_BYTES = 1 << 30


def physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


# The estimate's counts saturate at 2^64 - 1 (src/core/verifier/estimate.cpp).
SATURATED = 2**64 - 1


def format_count(n: int) -> str:
    return "over 1.8 x 10^19" if n >= SATURATED else f"{n:,}"


@dataclass
class Estimate:
    memory_bytes: int
    passes: int
    rank_steps: int
    slot_states: int
    work: int
    # fingerprint mode: the translation symmetry found, or why none applies (docs/verifier.md)
    symmetry: str = ""

    @property
    def seconds(self) -> float:
        return self.work / WORK_PER_SECOND

    def describe(self) -> str:
        duration = format_duration(self.seconds)
        return (
            f"about {format_bytes(self.memory_bytes)} of memory and {format_count(self.work)} "
            f"units of work ({self.rank_steps:,} rank-steps x {self.passes:,} pass(es), "
            f"{format_count(self.slot_states)} slot states; "
            + (f"over {duration}" if self.work >= SATURATED else f"roughly {duration}")
            + ")"
            + (f"; {self.symmetry}" if self.symmetry else "")
        )


def format_duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h"
    if seconds < 2 * 31557600:
        return f"{seconds / 86400:,.0f} days"
    return f"{seconds / 31557600:,.0f} years"


def estimate(
    schedule: _core.Schedule, mode: str, commutative: bool = True, work_limit: int | None = None
) -> Estimate:
    """`work_limit`: the most work the caller would run; beyond it the fingerprint estimate
    does not search for a translation symmetry that could not bring the run under it."""
    return Estimate(**_core.estimate_verify(schedule, mode, commutative, work_limit=work_limit))


def check_verify(schedule: _core.Schedule, mode: str, commutative: bool, force: bool) -> Estimate:
    """The estimate of verifying `schedule`; InputError when it is beyond the limits."""
    limit = None if force else int(TIME_LIMIT_S * WORK_PER_SECOND)
    e = estimate(schedule, mode, commutative, limit)
    available = int(physical_memory() * MEMORY_SHARE)
    if e.memory_bytes > available and not force:
        hint = (
            "use --mode fingerprint or a smaller instance"
            if mode == "exact"
            else "verify a smaller instance"
        )
        raise InputError(
            f"verifying in {mode} mode needs {e.describe()}, more than the "
            f"{format_bytes(available)} this machine can give it; {hint} (or --force to try)"
        )
    if e.seconds > TIME_LIMIT_S and not force:
        raise InputError(
            f"verifying in {mode} mode needs {e.describe()}, longer than "
            f"{format_duration(TIME_LIMIT_S)}; add --force to run it anyway "
            "(with --progress to watch it)"
        )
    return e


def count_rank_steps(schedule: _core.Schedule) -> int:
    """The schedule's steps over every rank and lane. The exact-mode estimate counts them
    without the fingerprint mode's search for a translation symmetry, which walks whole lanes."""
    return _core.estimate_verify(schedule, "exact")["rank_steps"]


def check_export(schedule: _core.Schedule, force: bool) -> None:
    """Refuses to print a schedule whose listing would exceed EXPORT_LIMIT_BYTES."""
    rank_steps = count_rank_steps(schedule)
    size = rank_steps * EXPORT_BYTES_PER_RANK_STEP
    if size > EXPORT_LIMIT_BYTES and not force:
        raise InputError(
            f"the schedule has {rank_steps:,} rank-steps, about {format_bytes(size)} of output "
            f"(more than {format_bytes(EXPORT_LIMIT_BYTES)}); export a smaller instance or "
            "add --force"
        )


def check_traffic(schedule: _core.Schedule, force: bool) -> None:
    """Refuses a traffic count (one pass over every rank-step) beyond TIME_LIMIT_S."""
    rank_steps = count_rank_steps(schedule)
    seconds = rank_steps / WORK_PER_SECOND
    if seconds > TIME_LIMIT_S and not force:
        raise InputError(
            f"counting the traffic walks {rank_steps:,} rank-steps, roughly "
            f"{format_duration(seconds)}; use a smaller instance or add --force"
        )


# The simulator. `_core.estimate_simulation` (src/sim/run_estimate.cpp) counts what
# a run's work and memory grow with; these rates turn the counts into CPU seconds and bytes.
# Fitted with `python bench/sim_estimate_fit.py` on the development machine (2 shared cores;
# the table is in docs/simulator.md, "Limits before long runs"), taking the slow end so that
# runs of a second or more are estimated long (2026-11-29: flow runs at 0.7-13x their time,
# runs under half a second down to 0.2x; the analytic model at 1.1-4x, the packet model at
# 0.8-3.5x, SimGrid, its child process included, at 1.1-1.9x after its transfer rate went
# from 2e-5 to 6e-5 s: bucket on 32x32 took 28.6 CPU s against 10.4 estimated).
SIM_SECONDS = {
    "flow": {
        "rank_steps": 3e-7,
        "transfers": 2e-7,
        "groups": 6e-7,
        "group_crossings": 3e-7,
        "flow_work": 4e-10,
        "event_work": 4e-10,
    },
    "analytic": {"rank_steps": 2e-7, "transfers": 1.8e-6, "link_crossings": 5e-8},
    "packet": {"rank_steps": 2e-7, "transfers": 6e-7, "packet_work": 2e-7},
    "simgrid": {"rank_steps": 2e-7, "transfers": 6e-5, "link_crossings": 4e-7},
}
# The flow model's symmetry search reads every step of every rank (per rank-step), and a run
# that qualified for it but has none drifts, as does every run on a Dragonfly or Dragonfly+
# (docs/simulator.md, "Limits before long runs"): every group ends at its own instant (per unit of
# `drift_work`, `bench/sim_estimate_fit.py --drift`, 2026-11-29, since the refill leaves out links
# with room: Fugaku's allgather on 32x256 at 512 MiB 3.1e-10, at 1 MiB 2.5e-11, LUMI and
# Leonardo allreduces on 512-2,048 random nodes 0.7e-10 to 1.3e-10; the rate sits above the
# first, so that the dragonfly runs are estimated about 3-5x long).
SYMMETRY_SEARCH_SECONDS = 6e-7  # swing-bw on 128x128: 0.46M rank-steps, 1.8M messages in 0.48 s
SYMMETRY_SEARCH_SECONDS_PER_MESSAGE = 1.2e-7  # bine-bw-block on 128x128: 410M messages in 24 s
DRIFT_SECONDS = 4e-10
# Bytes per item, from the peak RSS of the same runs (0.5-1.5x of it where it exceeds a few
# MiB): a link of a built topology with its label and adjacency (hypercube:19: 102 B,
# torus:1024x1024: 128 B), a rank's state in the driver, a transfer in flight, a group of the
# flow model in flight and each link it holds (recursive doubling on ring:4096: 36 B per link
# of its largest step), a cached route (per pair, path and link), and a FIFO of the packet model
# per link and hop class (ring:256 and ring:512: 600 B, plus 48 B per packet its buffer holds).
SIM_BYTES = {
    "base": 16 << 20,
    "link": 130,
    "node": 64,
    "rank": 256,
    "transfer": 100,
    "group": 200,
    "group_link": 40,
    "route_pair": 32,
    "route_path": 48,
    "route_link": 4,
    "fifo": 600,
    "packet": 48,
}
ROUTE_CACHE_LIMIT_BYTES = 400 << 20  # the route cache empties itself past about this


@dataclass
class SimulationCost:
    """What one or more simulations will cost: CPU seconds and peak bytes."""

    seconds: float
    memory_bytes: int
    what: str  # the counts the figures come from, for messages
    # Of `seconds`, the flow model's symmetry search: once per schedule, whatever the size
    # (the engine caches it), so a sweep over sizes pays it once.
    search_seconds: float = 0.0

    def describe(self) -> str:
        return (
            f"about {format_bytes(self.memory_bytes)} of memory and roughly "
            f"{format_duration(self.seconds)} ({self.what})"
        )


def simulation_cost(
    estimate: dict, model: str, *, links: int, nodes: int, graph: bool, buffer_packets: int
) -> SimulationCost:
    """Seconds and bytes of one run from its `_core.estimate_simulation` counts."""
    rates = SIM_SECONDS[model]
    seconds = sum(rate * estimate[name] for name, rate in rates.items())
    group = estimate["symmetry_group"]
    if group > 1:  # the flow model simulates one host of each orbit
        seconds /= group
    elif estimate["drifts"]:
        seconds += estimate["drift_work"] * DRIFT_SECONDS
    search = 0.0
    if estimate["symmetry_search"]:  # (the estimate may have run it: the engine reuses it)
        search = (
            estimate["rank_steps"] * SYMMETRY_SEARCH_SECONDS
            + estimate["messages"] * SYMMETRY_SEARCH_SECONDS_PER_MESSAGE
        )
        seconds += search
    b = SIM_BYTES
    routes = (
        estimate["route_pairs"] * b["route_pair"]
        + estimate["route_paths"] * b["route_path"]
        + estimate["route_links"] * b["route_link"]
    )
    in_flight = (
        estimate["peak_transfers"] * b["transfer"]
        + estimate["peak_groups"] * b["group"]
        + estimate["peak_group_crossings"] * b["group_link"]
        # the analytic model keeps a second cache for its per-step link counts
        + min(routes, ROUTE_CACHE_LIMIT_BYTES) * (2 if model == "analytic" else 1)
    )
    if model == "flow":
        in_flight /= group
    memory = (
        b["base"]
        + links * b["link"]
        + nodes * b["node"]
        + estimate["ranks"] * b["rank"]
        + in_flight
    )
    if graph:  # the graph router keeps one hop distance per node for every destination host
        memory += estimate["ranks"] * nodes * 4
    if model == "packet":
        memory += links * estimate["max_hops"] * (b["fifo"] + buffer_packets * b["packet"])
    what = (
        f"{estimate['ranks']:,} ranks, {estimate['rank_steps']:,} rank-steps, "
        f"{estimate['transfers']:,.0f} transfers"
    )
    if model == "packet":
        what += f", {estimate['packets']:,.0f} packets"
    return SimulationCost(seconds, int(memory), what, search)


def check_simulation(cost: SimulationCost, force: bool, what: str = "the simulation") -> None:
    """InputError when `cost` is beyond this machine's memory or TIME_LIMIT_S, unless forced."""
    if force:
        return
    available = int(physical_memory() * MEMORY_SHARE)
    if cost.memory_bytes > available:
        raise InputError(
            f"{what} needs {cost.describe()}, more than the {format_bytes(available)} this "
            "machine can give it; simulate fewer ranks or a smaller size (or --force to try)"
        )
    if cost.seconds > TIME_LIMIT_S:
        raise InputError(
            f"{what} needs {cost.describe()}, longer than {format_duration(TIME_LIMIT_S)}; "
            "simulate fewer ranks, sizes or algorithms, or add --force to run it anyway "
            "(with --progress to watch it)"
        )

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
from topocoll.shapes import InputError
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


@dataclass
class Estimate:
    memory_bytes: int
    passes: int
    rank_steps: int
    slot_states: int
    work: int

    @property
    def seconds(self) -> float:
        return self.work / WORK_PER_SECOND

    def describe(self) -> str:
        return (
            f"about {format_bytes(self.memory_bytes)} of memory and {self.work:,} units of work "
            f"({self.rank_steps:,} rank-steps x {self.passes:,} pass(es), "
            f"{self.slot_states:,} slot states; roughly {format_duration(self.seconds)})"
        )


def format_duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:,.0f} days"


def estimate(schedule: _core.Schedule, mode: str, commutative: bool = True) -> Estimate:
    return Estimate(**_core.estimate_verify(schedule, mode, commutative))


def check_verify(schedule: _core.Schedule, mode: str, commutative: bool, force: bool) -> Estimate:
    """The estimate of verifying `schedule`; InputError when it is beyond the limits."""
    e = estimate(schedule, mode, commutative)
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


def check_export(schedule: _core.Schedule, force: bool) -> None:
    """Refuses to print a schedule whose listing would exceed EXPORT_LIMIT_BYTES."""
    rank_steps = _core.estimate_verify(schedule, "fingerprint")["rank_steps"]
    size = rank_steps * EXPORT_BYTES_PER_RANK_STEP
    if size > EXPORT_LIMIT_BYTES and not force:
        raise InputError(
            f"the schedule has {rank_steps:,} rank-steps, about {format_bytes(size)} of output "
            f"(more than {format_bytes(EXPORT_LIMIT_BYTES)}); export a smaller instance or "
            "add --force"
        )


def check_traffic(schedule: _core.Schedule, force: bool) -> None:
    """Refuses a traffic count (one pass over every rank-step) beyond TIME_LIMIT_S."""
    rank_steps = _core.estimate_verify(schedule, "fingerprint")["rank_steps"]
    seconds = rank_steps / WORK_PER_SECOND
    if seconds > TIME_LIMIT_S and not force:
        raise InputError(
            f"counting the traffic walks {rank_steps:,} rank-steps, roughly "
            f"{format_duration(seconds)}; use a smaller instance or add --force"
        )

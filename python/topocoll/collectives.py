"""Facts about the collectives, in one place: which have a root, which are chunked per rank
(the MPI count is per rank: the size is P x count), which reduce, and the bus-bandwidth factor.
Tuples are in the core's order (`_core.collectives()`)."""

from __future__ import annotations

from topocoll import _core

_ROOTED = {"bcast", "reduce", "gather", "scatter"}
_CHUNKED = {"reduce-scatter", "allgather", "gather", "scatter", "alltoall"}
_REDUCING = {"allreduce", "reduce-scatter", "reduce"}

NAMES: tuple[str, ...] = tuple(_core.collectives())
ROOTED = tuple(c for c in NAMES if c in _ROOTED)
CHUNKED = tuple(c for c in NAMES if c in _CHUNKED)
REDUCING = tuple(c for c in NAMES if c in _REDUCING)  # --reduce-cost applies


def bandwidth_factor(collective: str, ranks: int) -> float:
    """f(P): the bytes every rank must inject or eject, as a multiple of the size (the factors
    of nccl-tests' busbw): 2(P-1)/P for allreduce, 1 for bcast and reduce, (P-1)/P otherwise."""
    if collective == "allreduce":
        return 2 * (ranks - 1) / ranks
    if collective in ("bcast", "reduce"):
        return 1.0
    return (ranks - 1) / ranks

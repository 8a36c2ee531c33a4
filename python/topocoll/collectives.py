"""Facts about the collectives, from the core (`_core.collective_facts()`, src/core/collective.hpp):
which have a root, which are chunked per rank (the MPI count is per rank: the size is P x count),
which reduce, and the bus-bandwidth factor f(P) (`_core.bandwidth_factor`, the factors of
nccl-tests' busbw). Tuples are in the core's order."""

from __future__ import annotations

from topocoll import _core

_FACTS = _core.collective_facts()

NAMES: tuple[str, ...] = tuple(f["name"] for f in _FACTS)
ROOTED: tuple[str, ...] = tuple(f["name"] for f in _FACTS if f["rooted"])
CHUNKED: tuple[str, ...] = tuple(f["name"] for f in _FACTS if f["chunked"])
REDUCING: tuple[str, ...] = tuple(f["name"] for f in _FACTS if f["reducing"])  # --reduce-cost


def bandwidth_factor(collective: str, ranks: int) -> float:
    """f(P): the bytes every rank must inject or eject, as a multiple of the size."""
    return _core.bandwidth_factor(collective, ranks)

"""The rules file that `auto` reads (TOPOCOLL_RULES, docs/mpi.md), from the
simulator. For each size of a range the simulator ranks every algorithm of the collective on the
given topology and rank count; consecutive sizes with the same fastest algorithm become one rule.

Format (agreed with the MPI runtime, src/mpi/runtime/rules.hpp): {"version": 1, "rules": [
{"collective", "min_ranks", "max_ranks", "min_bytes", "max_bytes", "algorithm"}, ...]}, ranges
inclusive, first match wins, bytes = the MPI count x type size of the call (one rank's vector;
for the chunked collectives one block, i.e. the simulator's size / P). A band runs from its first
simulated size up to the byte before the next band's first size; the first band starts at 0 and
the last one has no upper end (the largest value the runtime's parser takes)."""

from __future__ import annotations

from dataclasses import dataclass

from topocoll.collectives import CHUNKED
from topocoll.comparison import Comparison, compare

DEFAULT_SIZES = "8B:64MiB"
NO_UPPER_END = (1 << 63) - 1  # the runtime reads bounds as non-negative 64-bit signed integers


@dataclass(frozen=True)
class Band:
    first_size: int  # simulated size (bytes of the largest buffer) where the band starts
    last_size: int  # last simulated size of the band
    algorithm: str


def bands(best: list[tuple[int, str]]) -> list[Band]:
    """Consecutive (size, fastest algorithm) pairs, sorted by size, merged where the algorithm
    stays the same."""
    out: list[Band] = []
    for size, algorithm in sorted(best):
        if out and out[-1].algorithm == algorithm:
            out[-1] = Band(out[-1].first_size, size, algorithm)
        else:
            out.append(Band(size, size, algorithm))
    return out


def call_bytes(collective: str, size: int, ranks: int) -> int:
    """The rules' bytes (MPI count x type size) of a simulated size."""
    return size // ranks if collective in CHUNKED else size


def rules_from(comparison: Comparison) -> dict:
    """The rules document for one comparison (one collective, one rank count)."""
    ranks, collective = comparison.ranks, comparison.collective
    merged = bands([(s.size_bytes, s.best) for s in comparison.summary])
    rules = []
    for i, band in enumerate(merged):
        low = 0 if i == 0 else call_bytes(collective, band.first_size, ranks)
        if i + 1 < len(merged):
            high = call_bytes(collective, merged[i + 1].first_size, ranks) - 1
        else:
            high = NO_UPPER_END
        rules.append(
            {
                "collective": collective,
                "min_ranks": ranks,
                "max_ranks": ranks,
                "min_bytes": low,
                "max_bytes": high,
                "algorithm": band.algorithm,
            }
        )
    return {
        "version": 1,
        "rules": rules,
        # Ignored by the runtime; says where the rules come from and how to reproduce them.
        "source": {
            "topology": comparison.topology,
            **({"machine": comparison.machine} if comparison.machine else {}),
            "model": comparison.model,
            "routing": comparison.routing,
            "ranks": ranks,
            "sizes": comparison.sizes,
            "best": {str(s.size_bytes): s.best for s in comparison.summary},
        },
    }


def select(rules: dict, collective: str, ranks: int, nbytes: int) -> str | None:
    """The algorithm the first matching rule names (what the runtime's `auto` does), or None."""
    for rule in rules["rules"]:
        if (
            rule["collective"] == collective
            and rule["min_ranks"] <= ranks <= rule["max_ranks"]
            and rule["min_bytes"] <= nbytes <= rule["max_bytes"]
        ):
            return rule["algorithm"]
    return None


def tune(
    topology: str | None,
    collective: str = "allreduce",
    *,
    sizes: str = DEFAULT_SIZES,
    algorithms: str = "all",
    jobs: int = 1,
    force: bool = False,
    **options,
) -> dict:
    """Simulates and returns the rules document; `options` are those of `topocoll.compare`
    (machine, ranks, dims, model, routing, bandwidth, ...): with `machine` the rules are those
    of that machine file, host costs included; `force` as for compare."""
    comparison = compare(
        topology,
        collective,
        algorithms=algorithms,
        sizes=sizes,
        jobs=jobs,
        use_mpi=False,
        force=force,
        **options,
    )
    return rules_from(comparison)

"""Tuning files for the MPI libraries users already run (docs/interchange.md, "Tuning files"):
Open MPI 4.1's coll_tuned dynamic rules and MPICH 4's JSON collective selection, written from
a `tune` comparison restricted to the algorithms that library implements itself.

The mapping pairs a registry algorithm with the library's algorithm of the same communication
pattern (the ids are those `ompi_info --param coll tuned --level 9` lists for Open MPI 4.1.4,
the names those of MPICH 4.0.2's `MPIR_<Coll>_intra_<name>` functions)."""

from __future__ import annotations

import json

from topocoll.errors import InputError

# Open MPI 4.1 collective ids (COLLTYPE_T in ompi/mca/coll/base/coll_base_functions.h).
OMPI_COLLECTIVE_ID = {
    "allgather": 0,
    "allreduce": 2,
    "alltoall": 3,
    "bcast": 7,
    "reduce-scatter": 12,  # MPI_Reduce_scatter (equal counts); see docs
}

# topocoll algorithm -> (Open MPI algorithm id, its name), per collective.
OMPI_ALGORITHMS = {
    "allreduce": {
        "recdoub-lat": (3, "recursive_doubling"),
        "ring": (4, "ring"),
        "recdoub-bw": (6, "rabenseifner"),  # reduce-scatter + allgather, halving/doubling
    },
    "allgather": {
        "recdoub-bw": (3, "recursive_doubling"),
        "ring": (4, "ring"),
    },
    "alltoall": {
        "pairwise": (2, "pairwise"),
        "bruck": (3, "modified_bruck"),
    },
    "bcast": {
        "binomial-doubling": (6, "binomial"),
    },
    "reduce-scatter": {
        "recdoub-bw-distance-halving": (2, "recursive_halving"),
        "ring": (3, "ring"),
    },
}

# topocoll algorithm -> MPICH algorithm function, per collective: the functions MPICH 4.0.2
# (Debian 12) has; it has no ring allreduce (a selection file naming one makes it abort).
MPICH_ALGORITHMS = {
    "allreduce": {
        "recdoub-lat": "MPIR_Allreduce_intra_recursive_doubling",
        "recdoub-bw": "MPIR_Allreduce_intra_reduce_scatter_allgather",
    },
    "allgather": {
        "recdoub-bw": "MPIR_Allgather_intra_recursive_doubling",
        "ring": "MPIR_Allgather_intra_ring",
    },
    "alltoall": {
        "pairwise": "MPIR_Alltoall_intra_pairwise",
        "bruck": "MPIR_Alltoall_intra_brucks",
    },
    "bcast": {
        "binomial-doubling": "MPIR_Bcast_intra_binomial",
    },
    "reduce-scatter": {
        "recdoub-bw-distance-halving": "MPIR_Reduce_scatter_intra_recursive_halving",
    },
}

MAPPINGS = {"ompi-rules": OMPI_ALGORITHMS, "mpich-json": MPICH_ALGORITHMS}


def library_algorithms(fmt: str, collective: str, requested: str) -> str:
    """The --algorithms of the comparison: those the library implements (and the user asked
    for, when not 'all'). InputError names what is accepted."""
    mapping = MAPPINGS[fmt].get(collective)
    if not mapping:
        accepted = ", ".join(sorted(MAPPINGS[fmt]))
        raise InputError(f"--format {fmt} has no {collective} algorithms; accepted: {accepted}")
    if requested == "all":
        return ",".join(mapping)
    chosen = requested.split(",")
    foreign = [a for a in chosen if a not in mapping]
    if foreign:
        raise InputError(
            f"--format {fmt}: {', '.join(foreign)} is not an algorithm of that library for "
            f"{collective}; accepted: {', '.join(mapping)}"
        )
    return requested


def ompi_bytes(collective: str, size: int) -> int:
    """The message size Open MPI 4.1's dynamic rules compare (the simulated size: type size x
    count for allreduce and bcast, x count x communicator size for allgather and alltoall, the
    sum of the receive counts for reduce_scatter)."""
    del collective
    return size


def ompi_rules(document: dict, collective: str, ranks: int) -> str:
    """Open MPI's rules file text for a `tune` rules document: one collective, one
    communicator size, and one line per band (`msgsize algorithm fanout segsize`), the first
    from size 0 (without it Open MPI ignores the file's rules for small messages)."""
    mapping = OMPI_ALGORITHMS[collective]
    sizes = document["source"]["best"]
    bands = []
    for size, algorithm in sorted((int(s), a) for s, a in sizes.items()):
        if not bands or bands[-1][1] != algorithm:
            bands.append((0 if not bands else ompi_bytes(collective, size), algorithm))
    lines = [
        "1 # collectives in this file",
        f"{OMPI_COLLECTIVE_ID[collective]} # {collective}",
        "1 # communicator sizes",
        f"{ranks} # communicator size (and larger, up to the next listed)",
        f"{len(bands)} # message sizes",
    ]
    for low, algorithm in bands:
        ident, name = mapping[algorithm]
        lines.append(f"{low} {ident} 0 0 # from {low} B: {name} (topocoll {algorithm})")
    return "\n".join(lines) + "\n"


def mpich_json(document: dict, collective: str, ranks: int) -> str:
    """MPICH's selection tree (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE): the collective, then
    intra-communicators of any size, then message-size bands. MPICH 4.0.2 aborts at start-up on
    a `comm_size<=P` level here, so the bands (tuned for `ranks`) apply to every size."""
    del ranks
    mapping = MPICH_ALGORITHMS[collective]
    sizes = sorted((int(s), a) for s, a in document["source"]["best"].items())
    bands: list[tuple[int, str]] = []  # (first size, algorithm)
    for size, algorithm in sizes:
        if not bands or bands[-1][1] != algorithm:
            bands.append((size, algorithm))
    by_size: dict[str, dict] = {}
    for i, (_, algorithm) in enumerate(bands):
        key = f"avg_msg_size<={bands[i + 1][0] - 1}" if i + 1 < len(bands) else "avg_msg_size=any"
        by_size[key] = {f"algorithm={mapping[algorithm]}": {}}
    name = "reduce_scatter" if collective == "reduce-scatter" else collective
    tree = {f"collective={name}": {"comm_type=intra": {"comm_size=any": by_size}}}
    return json.dumps(tree, indent=2) + "\n"

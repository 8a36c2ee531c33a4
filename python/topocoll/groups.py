"""Group maps for traffic analysis: which group (Dragonfly group, rack, ...) each rank is in.

Specs:
  contiguous:G                          G consecutive ranks per group
  random:NGROUPS:GROUPSIZE:SEED         a system of NGROUPS groups of GROUPSIZE nodes; the job gets
                                        P free nodes chosen at random and ranks follow node order
                                        (a scheduler's block distribution)
  FILE.csv                              lines `rank,group` (an optional header line is skipped)
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

from topocoll.errors import InputError

# Groups and group sizes beyond this are not systems anyone allocates on; bounding them keeps
# NGROUPS x GROUPSIZE within what random.sample can draw from.
MAX_COUNT = 1 << 30
ACCEPTED = "contiguous:G, random:NGROUPS:GROUPSIZE:SEED, or a CSV file of rank,group lines"


def _positive(text: str, what: str, spec: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise InputError(f"--groups '{spec}': {what} '{text}' is not an integer") from None
    if not 1 <= value <= MAX_COUNT:
        raise InputError(
            f"--groups '{spec}': {what} = {value} is out of range; accepted: 1..{MAX_COUNT}"
        )
    return value


def contiguous(ranks: int, group_size: int) -> list[int]:
    return [r // group_size for r in range(ranks)]


def random_nodes(ranks: int, nodes: int, seed: int) -> list[int]:
    """`ranks` distinct nodes of `nodes`, drawn with `seed`, in node order: rank r on the r-th
    (a batch scheduler's allocation numbered in node order)."""
    return sorted(random.Random(seed).sample(range(nodes), ranks))


def random_allocation(ranks: int, groups: int, group_size: int, seed: int) -> list[int]:
    nodes = groups * group_size
    if ranks > nodes:
        raise InputError(
            f"--groups random: the system has {nodes} nodes ({groups} x {group_size}), "
            f"fewer than the {ranks} ranks"
        )
    return [node // group_size for node in random_nodes(ranks, nodes, seed)]


def from_csv(path: Path, ranks: int) -> list[int]:
    try:
        return _read_csv(path, ranks)
    except UnicodeDecodeError:
        raise InputError(f"--groups: '{path}' is not a text file; accepted: {ACCEPTED}") from None
    except csv.Error as error:
        raise InputError(f"--groups: '{path}' is not a readable CSV file ({error})") from None


def _read_csv(path: Path, ranks: int) -> list[int]:
    groups: dict[int, int] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for number, row in enumerate(csv.reader(handle), start=1):
            if not row or not "".join(row).strip():
                continue
            if len(row) != 2:
                raise InputError(f"{path}:{number}: expected 'rank,group', got {','.join(row)!r}")
            try:
                rank, group = int(row[0]), int(row[1])
            except ValueError:
                if number == 1:
                    continue  # header
                raise InputError(f"{path}:{number}: rank and group must be integers") from None
            if not 0 <= rank < ranks:
                raise InputError(
                    f"{path}:{number}: rank {rank} is out of range; accepted: 0..{ranks - 1}"
                )
            if group < 0:
                raise InputError(f"{path}:{number}: group must be >= 0 (got {group})")
            if rank in groups:
                raise InputError(f"{path}:{number}: rank {rank} is listed twice")
            groups[rank] = group
    missing = [r for r in range(ranks) if r not in groups]
    if missing:
        raise InputError(f"{path}: no group for rank(s) {', '.join(map(str, missing[:10]))}")
    return [groups[r] for r in range(ranks)]


def parse_groups(spec: str, ranks: int) -> list[int]:
    kind, _, rest = spec.partition(":")
    if kind == "contiguous" and rest:
        return contiguous(ranks, _positive(rest, "group size", spec))
    if kind == "random" and rest:
        parts = rest.split(":")
        if len(parts) != 3:
            raise InputError(f"--groups '{spec}': expected random:NGROUPS:GROUPSIZE:SEED")
        groups = _positive(parts[0], "NGROUPS", spec)
        size = _positive(parts[1], "GROUPSIZE", spec)
        try:
            seed = int(parts[2])
        except ValueError:
            raise InputError(f"--groups '{spec}': SEED '{parts[2]}' is not an integer") from None
        return random_allocation(ranks, groups, size, seed)
    path = Path(spec)
    if path.is_dir():
        raise InputError(f"--groups: '{spec}' is a directory; accepted: {ACCEPTED}")
    if path.suffix.lower() == ".csv" or path.is_file():
        if not path.is_file():
            raise InputError(f"--groups: no such file '{spec}'")
        return from_csv(path, ranks)
    raise InputError(f"--groups '{spec}' is not a group spec; accepted: {ACCEPTED}")

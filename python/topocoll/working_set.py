"""Rates that depend on the working set (docs/machines.md, "Rates by working set"): a machine
file's `working_set` table gives rates measured at a few buffer sizes; a run takes the rates at
its own vector size, interpolated between the two nearest points (linear in log size and log
rate, so a rate and its inverse interpolate alike) and those of the nearest end outside them."""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

# (bytes, ((field, value), ...)) per point, by increasing bytes; fields as the engine names them
Points = tuple[tuple[int, tuple[tuple[str, float], ...]], ...]

# Fields of NetworkParams (and its HostCosts) and of NodeSpec that a point may set.
PARAM_FIELDS = (
    "bandwidth_bytes_per_s",
    "copy_s_per_byte",
    "reduce_s_per_byte",
    "lent_copy_s_per_byte",
    "lent_reduce_s_per_byte",
)
NODE_FIELDS = ("fabric_bandwidth", "memory_bandwidth")


def points_for(
    table: Sequence[tuple[int, dict[str, float]]], datatype_class: str, overridden: set[str]
) -> Points:
    """A machine's table (`_core.Machine.working_set`) as the points of one run: the reduction
    rate of `datatype_class` as `reduce_s_per_byte`, without the fields in `overridden` (a single
    option wins over the table, as over any machine value). Points left with no field go."""
    points = []
    for nbytes, values in table:
        fields: dict[str, float] = {}
        for name, value in values.items():
            base, _, cls = name.partition(":")
            if cls and cls != datatype_class:
                continue
            if base not in overridden:
                fields[base] = value
        if fields:
            points.append((int(nbytes), tuple(sorted(fields.items()))))
    return tuple(points)


def rates_at(points: Points, nbytes: int) -> dict[str, float]:
    """Each field's value at a working set of `nbytes`: interpolated between the nearest points
    that give it on either side, or the nearest one's value outside them."""
    fields = {name for _, values in points for name, _ in values}
    return {name: _field_at(points, name, nbytes) for name in sorted(fields)}


def _field_at(points: Points, name: str, nbytes: int) -> float:
    known = [(b, dict(values)[name]) for b, values in points if name in dict(values)]
    sizes = [b for b, _ in known]
    i = bisect.bisect_left(sizes, nbytes)
    if i < len(known) and sizes[i] == nbytes:
        return known[i][1]
    if i == 0:
        return known[0][1]
    if i == len(known):
        return known[-1][1]
    (b0, v0), (b1, v1) = known[i - 1], known[i]
    t = (math.log(nbytes) - math.log(b0)) / (math.log(b1) - math.log(b0))
    return math.exp(math.log(v0) + t * (math.log(v1) - math.log(v0)))

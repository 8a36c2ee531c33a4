"""Bytes a schedule sends in total and across group boundaries (`topocoll traffic`)."""

from __future__ import annotations

from dataclasses import dataclass

from topocoll import _core, limits


@dataclass
class Traffic:
    algorithm: str
    bytes: int
    inter_group_bytes: int
    messages: int
    inter_group_messages: int

    @property
    def inter_share(self) -> float:
        return self.inter_group_bytes / self.bytes if self.bytes else 0.0


def measure(
    algorithm: str,
    collective: str,
    ranks: int,
    dims: list[int],
    root: int,
    group_of: list[int],
    size: int,
    force: bool = False,
) -> Traffic:
    schedule = _core.build(algorithm, collective, ranks, dims, 0, root)
    limits.check_traffic(schedule, force)
    totals = _core.traffic(schedule, group_of, size)
    return Traffic(algorithm, **totals)


def reduction(base: Traffic, other: Traffic) -> float:
    """Relative reduction of inter-group bytes of `other` against `base` (0.25 = 25% fewer)."""
    if base.inter_group_bytes == 0:
        return 0.0
    return 1.0 - other.inter_group_bytes / base.inter_group_bytes

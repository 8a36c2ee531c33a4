"""`topocoll traffic`: bytes a schedule sends in total and across group boundaries."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from topocoll import _core, limits
from topocoll.groups import parse_groups
from topocoll.shapes import InputError
from topocoll.units import format_bytes, parse_bytes

ROOTED = ("bcast", "reduce", "gather", "scatter")


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


def run(args) -> int:
    from topocoll.shapes import parse_dims

    if bool(args.algorithm) == bool(args.compare):
        raise InputError("give exactly one of --algorithm A or --compare A,B")
    names = args.compare.split(",") if args.compare else [args.algorithm]
    if args.compare and len(names) != 2:
        raise InputError(f"--compare takes two algorithms A,B (got '{args.compare}')")
    if not args.collective:
        raise InputError(f"--collective is required; accepted: {', '.join(_core.collectives())}")
    if args.collective not in _core.collectives():
        raise InputError(
            f"unknown collective '{args.collective}'; accepted: {', '.join(_core.collectives())}"
        )
    if args.root is not None and args.collective not in ROOTED:
        raise InputError(
            f"--root does not apply to {args.collective}; it applies to {', '.join(ROOTED)}"
        )
    root = args.root or 0
    dims = parse_dims(args.dims) if args.dims else []
    ranks = args.ranks or 0
    if ranks == 0 and dims:
        ranks = 1
        for d in dims:
            ranks *= d
    if ranks < 2:
        raise InputError("--ranks is required (a number of ranks >= 2), or give --dims")
    size = parse_bytes(args.size)
    group_of = parse_groups(args.groups, ranks)
    results = [
        measure(n, args.collective, ranks, dims, root, group_of, size, args.force) for n in names
    ]
    if args.json:
        doc = {
            "collective": args.collective,
            "ranks": ranks,
            "groups": args.groups,
            "groups_used": len(set(group_of)),
            "size": size,
            "results": [asdict(r) for r in results],
        }
        if len(results) == 2:
            doc["inter_group_reduction"] = reduction(*results)
        print(json.dumps(doc, indent=2))
        return 0
    print(
        f"{args.collective} P={ranks} size={format_bytes(size)} groups={args.groups} "
        f"({len(set(group_of))} groups used)"
    )
    print(
        f"{'algorithm':<20} {'bytes':>16} {'inter-group bytes':>18} {'share':>7} "
        f"{'messages':>10} {'inter-group msgs':>16}"
    )
    for r in results:
        print(
            f"{r.algorithm:<20} {r.bytes:>16,} {r.inter_group_bytes:>18,} "
            f"{100 * r.inter_share:>6.1f}% {r.messages:>10,} {r.inter_group_messages:>16,}"
        )
    if len(results) == 2:
        change = reduction(*results)
        verdict = "fewer" if change >= 0 else "more"
        print(
            f"{results[1].algorithm} vs {results[0].algorithm}: {abs(100 * change):.1f}% {verdict} "
            "inter-group bytes"
        )
    return 0

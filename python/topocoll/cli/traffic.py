"""`topocoll traffic`: bytes a schedule sends in total and across group boundaries."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from topocoll import _core
from topocoll.cli.common import bounded_int
from topocoll.collectives import ROOTED
from topocoll.errors import InputError
from topocoll.groups import parse_groups
from topocoll.shapes import MAX_RANKS, parse_dims
from topocoll.traffic import measure, reduction
from topocoll.units import format_bytes, parse_bytes


def register(sub) -> None:
    p = sub.add_parser("traffic", help="bytes sent in total and across group boundaries")
    p.add_argument("--collective", "-c")
    p.add_argument("--algorithm", "-a")
    p.add_argument("--compare", help="A,B: both algorithms and the reduction of B against A")
    p.add_argument("--ranks", "-p", type=bounded_int("ranks", 1, MAX_RANKS, f"2..{MAX_RANKS}"))
    p.add_argument("--dims", help="torus shape for torus algorithms")
    p.add_argument(
        "--groups", required=True, help="contiguous:G | random:NGROUPS:GROUPSIZE:SEED | FILE.csv"
    )
    p.add_argument("--size", default="1MiB", help="bytes of the whole vector (default 1MiB)")
    p.add_argument("--root", type=bounded_int("root", -MAX_RANKS, MAX_RANKS, "0..P-1"))
    p.add_argument("--json", action="store_true")
    p.add_argument("--force", action="store_true", help="run even beyond the estimated limits")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
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

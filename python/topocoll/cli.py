"""The `topocoll` command line. Exit codes: 0 success, 1 a schedule is wrong, 2 invalid or
unsupported input (the message names the problem and the accepted values)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from topocoll import _core
from topocoll.shapes import InputError, format_dims, parse_dims

EXIT_OK, EXIT_WRONG, EXIT_INPUT = 0, 1, 2
# Exact mode keeps every contribution of every slot: its memory grows with ranks x slots x
# contributions. Auto mode stays well below the verifier's hard limit (EXACT_SLOT_LIMIT).
AUTO_EXACT_SLOTS = 1 << 19


def add_shape_arguments(parser: argparse.ArgumentParser, with_root: bool = True) -> None:
    parser.add_argument("--collective", "-c", help="allreduce, reduce-scatter, allgather, ...")
    parser.add_argument("--algorithm", "-a", help="a name from `topocoll algorithms`")
    parser.add_argument("--ranks", "-p", type=int, default=0, help="number of ranks P")
    parser.add_argument("--dims", help="torus shape D0xD1x... (default: a ring of P ranks)")
    parser.add_argument("--ports", type=int, default=0, help="ports (default: the algorithm's)")
    if with_root:
        parser.add_argument("--root", type=int, default=0, help="root of rooted collectives")


def build_from_args(args: argparse.Namespace) -> _core.Schedule:
    if not args.collective:
        raise InputError(f"--collective is required; accepted: {', '.join(_core.collectives())}")
    if not args.algorithm:
        names = ", ".join(a["name"] for a in _core.algorithms())
        raise InputError(f"--algorithm is required; accepted: {names}")
    dims = parse_dims(args.dims) if args.dims else []
    if args.ranks < 0 or (args.ranks == 0 and not dims):
        raise InputError("--ranks must be a number of ranks >= 2 (or give --dims)")
    if args.ports < 0:
        raise InputError("--ports must be >= 1")
    return _core.build(
        args.algorithm,
        args.collective,
        args.ranks,
        dims,
        args.ports,
        args.root,
        not getattr(args, "non_commutative", False),
    )


def cmd_algorithms(args: argparse.Namespace) -> int:
    algos = _core.algorithms()
    if args.collective:
        if args.collective not in _core.collectives():
            raise InputError(
                f"unknown collective '{args.collective}'; "
                f"accepted: {', '.join(_core.collectives())}"
            )
        algos = [a for a in algos if args.collective in a["collectives"]]
    if args.json:
        print(json.dumps(algos, indent=2))
        return EXIT_OK
    from rich.console import Console
    from rich.table import Table

    table = Table(title="topocoll algorithms")
    for column in ("name", "collectives", "ranks", "torus", "ports (1D)", "paper"):
        table.add_column(column)
    for a in algos:
        req = a["requirements"]
        table.add_row(
            a["name"],
            ", ".join(a["collectives"]),
            req["ranks"],
            "yes" if req["torus"] else "ring",
            ",".join(str(p) for p in req["ports_1d"]),
            a["paper"],
        )
    Console(width=160).print(table)
    return EXIT_OK


def choose_mode(requested: str, schedule: _core.Schedule) -> str:
    info = schedule.info
    states = info["ranks"] * info["slots"]
    if requested == "exact" and not _core.exact_mode_fits(schedule):
        raise InputError(
            f"--mode exact tracks every contribution of ranks x slots = {states:,} slot states, "
            f"more than the {_core.EXACT_SLOT_LIMIT:,} it can hold; use --mode fingerprint "
            "(accepted: auto, exact, fingerprint)"
        )
    if requested != "auto":
        return requested
    return "exact" if states <= AUTO_EXACT_SLOTS else "fingerprint"


def describe(info: dict) -> str:
    shape = format_dims(info["dims"]) if len(info["dims"]) > 1 else str(info["ranks"])
    text = f"{info['collective']} {info['algorithm']} P={shape} ports={info['ports']}"
    if info["collective"] in ("bcast", "reduce", "gather", "scatter"):
        text += f" root={info['root']}"
    return text


def verify_one(schedule: _core.Schedule, args: argparse.Namespace) -> int:
    info = schedule.info
    mode = choose_mode(args.mode, schedule)
    adjacency = info["dims"] if args.adjacent else []
    if args.adjacent and not adjacency:
        adjacency = [info["ranks"]]
    report = _core.verify(schedule, mode, not args.non_commutative, args.seed, adjacency)
    print(
        f"{describe(info)}: {report['max_steps']} steps, {report['messages']} messages, "
        f"{report['block_transfers']} block transfers ({info['blocks']} blocks)"
    )
    if report["ok"]:
        order = "non-commutative" if args.non_commutative else "commutative"
        print(f"OK {describe(info)} verified ({mode}, {order})")
        return EXIT_OK
    print(f"FAIL {report['message']}")
    return EXIT_WRONG


def cmd_verify(args: argparse.Namespace) -> int:
    if args.all:
        return verify_all(args)
    if args.schedule:
        path = Path(args.schedule)
        if not path.is_file():
            raise InputError(f"--schedule: no such file '{path}'")
        return verify_one(_core.load_json(path.read_text()), args)
    return verify_one(build_from_args(args), args)


def verify_all(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from topocoll import verify_all as va

    if args.max_ranks < 2:
        raise InputError("--max-ranks must be >= 2")
    names = {a["name"] for a in _core.algorithms()}
    chosen = args.algorithm.split(",") if args.algorithm else None
    unknown = [n for n in chosen or [] if n not in names]
    if unknown:
        raise InputError(
            f"unknown algorithm(s) {', '.join(unknown)}; accepted: {', '.join(sorted(names))}"
        )
    tallies = va.run(args.max_ranks, chosen)
    table = Table(title=f"verify --all (P = 2..{args.max_ranks} and standard tori up to that size)")
    for column in (
        "algorithm",
        "collective",
        "verified",
        "tori",
        "largest P",
        "unsupported",
        "failed",
        "time",
    ):
        table.add_column(
            column, justify="right" if column not in ("algorithm", "collective") else "left"
        )
    for t in tallies:
        table.add_row(
            t.algorithm,
            t.collective,
            str(t.verified),
            str(t.shapes),
            str(t.largest),
            str(t.unsupported),
            str(len(t.failures)),
            f"{t.seconds:.1f}s",
        )
    Console(width=140).print(table)
    failures = [f for t in tallies for f in t.failures]
    for f in failures[:20]:
        print(f"FAIL {f}")
    verified = sum(t.verified for t in tallies)
    if failures:
        print(f"FAIL {len(failures)} of {verified + len(failures)} schedules are wrong")
        return EXIT_WRONG
    print(f"OK {verified} schedules verified over {len(tallies)} algorithm/collective pairs")
    return EXIT_OK


def cmd_schedule(args: argparse.Namespace) -> int:
    schedule = build_from_args(args)
    if args.format == "json":
        print(schedule.to_json(2 if args.pretty else -1))
    else:
        print(schedule.to_text(), end="")
    return EXIT_OK


def cmd_traffic(args: argparse.Namespace) -> int:
    from topocoll import traffic

    return traffic.run(args)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="topocoll", description=__doc__)
    sub = top.add_subparsers(dest="command", required=True)

    p = sub.add_parser("algorithms", help="list the registered algorithms")
    p.add_argument("--collective", "-c")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_algorithms)

    p = sub.add_parser("verify", help="verify a schedule symbolically")
    add_shape_arguments(p)
    p.add_argument("--schedule", help="verify a schedule file in the JSON format")
    p.add_argument("--all", action="store_true", help="verify every algorithm over a range of P")
    p.add_argument("--max-ranks", type=int, default=64, help="largest P for --all")
    p.add_argument("--mode", choices=["auto", "exact", "fingerprint"], default="auto")
    p.add_argument("--non-commutative", action="store_true", help="require rank-order reduction")
    p.add_argument("--adjacent", action="store_true", help="require torus-neighbour peers")
    p.add_argument("--seed", type=int, default=0x5EED, help="fingerprint seed")
    p.set_defaults(run=cmd_verify)

    p = sub.add_parser("traffic", help="bytes sent in total and across group boundaries")
    p.add_argument("--collective", "-c")
    p.add_argument("--algorithm", "-a")
    p.add_argument("--compare", help="A,B: both algorithms and the reduction of B against A")
    p.add_argument("--ranks", "-p", type=int, default=0)
    p.add_argument("--dims", help="torus shape for torus algorithms")
    p.add_argument(
        "--groups", required=True, help="contiguous:G | random:NGROUPS:GROUPSIZE:SEED | FILE.csv"
    )
    p.add_argument("--size", default="1MiB", help="bytes of the whole vector (default 1MiB)")
    p.add_argument("--root", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_traffic)

    p = sub.add_parser("schedule", help="print a schedule")
    add_shape_arguments(p)
    p.add_argument("--format", choices=["json", "text"], default="text")
    p.add_argument("--pretty", action="store_true", help="indent the JSON")
    p.set_defaults(run=cmd_schedule)

    from topocoll import sim_cli  # `sim` and `compare`

    sim_cli.add_parsers(sub)
    from topocoll import innet_cli  # `innet`

    innet_cli.add_parser(sub)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except (InputError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INPUT


if __name__ == "__main__":
    sys.exit(main())

"""The `topocoll` command line.

Exit codes: 0 success; 1 a well-formed schedule is wrong (the line names the violation); 2 any
input that is invalid, unsupported or too large (one line naming the problem and the accepted
values)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from importlib.metadata import PackageNotFoundError, version

from topocoll import _core, limits
from topocoll.shapes import MAX_RANKS, InputError, format_dims, parse_dims

EXIT_OK, EXIT_WRONG, EXIT_INPUT = 0, 1, 2
# Exact mode keeps every contribution of every slot: its memory grows with ranks x slots x
# contributions. Auto mode stays well below the verifier's hard limit (EXACT_SLOT_LIMIT).
AUTO_EXACT_SLOTS = 1 << 19
ROOTED = ("bcast", "reduce", "gather", "scatter")
MAX_PORTS = 1 << 20
MAX_ALL_RANKS = 4096
# What to try after running out of memory, per command (only verify has a cheaper mode).
OUT_OF_MEMORY_HINTS = {
    "verify": "the instance is larger than this machine holds (try a smaller one or "
    "--mode fingerprint)",
    "sim": "the run is larger than this machine holds (fewer ranks, a smaller --size)",
    "compare": "the runs are larger than this machine holds (fewer ranks or --jobs)",
    "tune": "the runs are larger than this machine holds (fewer ranks or --jobs)",
}


class Parser(argparse.ArgumentParser):
    """argparse with the exit-code contract: a usage error is one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_INPUT, f"error: {self.prog}: {one_line(message)}\n")


def bounded_int(name: str, low: int, high: int, accepted: str | None = None):
    """An argparse type: an integer in [low, high], else a one-line error naming the range."""

    def parse(text: str) -> int:
        try:
            value = int(text, 0)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{value} is out of range; accepted: {accepted or f'{low}..{high}'}"
            )
        return value

    parse.__name__ = name
    return parse


def given(args: argparse.Namespace, *names: str) -> list[str]:
    """The options among `names` the user gave (their defaults are None or False)."""
    return [
        "--" + n.replace("_", "-") for n in names if getattr(args, n, None) not in (None, False)
    ]


def reject(args: argparse.Namespace, names: tuple[str, ...], context: str) -> None:
    extra = given(args, *names)
    if extra:
        raise InputError(f"{', '.join(extra)} does not apply to {context}")


def add_shape_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--collective", "-c", help="allreduce, reduce-scatter, allgather, ...")
    parser.add_argument("--algorithm", "-a", help="a name from `topocoll algorithms`")
    parser.add_argument(
        "--ranks",
        "-p",
        type=bounded_int("ranks", 1, MAX_RANKS, f"2..{MAX_RANKS}"),
        help=f"number of ranks P (2..{MAX_RANKS})",
    )
    parser.add_argument("--dims", help="torus shape D0xD1x... (default: a ring of P ranks)")
    parser.add_argument(
        "--ports",
        type=bounded_int(
            "ports", 1, MAX_PORTS, "1 or more (omit --ports for the algorithm's default)"
        ),
        help="ports (default: the algorithm's)",
    )
    parser.add_argument(
        "--root",
        type=bounded_int("root", -MAX_RANKS, MAX_RANKS, "0..P-1"),
        help="root of rooted collectives (default 0)",
    )
    parser.add_argument(
        "--non-commutative", action="store_true", help="the reduction operator does not commute"
    )


def build_from_args(args: argparse.Namespace) -> _core.Schedule:
    if not args.collective:
        raise InputError(f"--collective is required; accepted: {', '.join(_core.collectives())}")
    if not args.algorithm:
        names = ", ".join(a["name"] for a in _core.algorithms())
        raise InputError(f"--algorithm is required; accepted: {names}")
    if args.collective not in _core.collectives():
        raise InputError(
            f"unknown collective '{args.collective}'; accepted: {', '.join(_core.collectives())}"
        )
    if args.root is not None and args.collective not in ROOTED:
        raise InputError(
            f"--root does not apply to {args.collective}; it applies to {', '.join(ROOTED)}"
        )
    dims = parse_dims(args.dims) if args.dims else []
    if not args.ranks and not dims:
        raise InputError("--ranks is required (a number of ranks >= 2), or give --dims")
    return _core.build(
        args.algorithm,
        args.collective,
        args.ranks or 0,
        dims,
        args.ports or 0,
        args.root or 0,
        not args.non_commutative,
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
    for column in ("name", "collectives", "ranks", "shape", "ports", "paper"):
        table.add_column(column)
    shapes = {
        "any": "any torus",
        "even": "even sides",
        "binary-cube": "2x..x2",
        "power-of-two": "2^k sides",
        "hamiltonian-pair": "2D RxC, R=kC",
        "some-odd": "a side odd >= 3",
        "some-just-above-power-of-three": "a side in (3^k, 4*3^(k-1)], k >= 2",
    }
    for a in algos:
        req = a["requirements"]
        table.add_row(
            a["name"],
            ", ".join(a["collectives"]),
            req["ranks"],
            shapes[req["sides"]] if req["torus"] else "ring",
            ",".join(req["ports"]) + f" ({req['default_ports']})",
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
    if info["collective"] in ROOTED:
        text += f" root={info['root']}"
    return text


def show_progress(args: argparse.Namespace) -> bool:
    return bool(args.progress) or sys.stderr.isatty()


def run_verify(schedule: _core.Schedule, args, mode: str, adjacency: list[int], e) -> dict:
    seed = 0x5EED if args.seed is None else args.seed
    call = (schedule, mode, not args.non_commutative, seed, adjacency)
    what = f"verifying {describe(schedule.info)}"
    if args.progress and not sys.stderr.isatty():
        # No terminal to animate (a log, a pipe): a line before and one after.
        print(f"{what}: estimated {e.describe()}", file=sys.stderr, flush=True)
        start = time.perf_counter()
        report = _core.verify(*call)
        print(f"{what}: done in {time.perf_counter() - start:.3f} s", file=sys.stderr)
        return report
    if not show_progress(args) or e.seconds < 2:
        return _core.verify(*call)
    from rich.console import Console

    console = Console(stderr=True)
    with console.status(f"{what}: estimated {e.describe()}"):
        return _core.verify(*call)


def verify_one(
    schedule: _core.Schedule, args: argparse.Namespace, notes: list[str] | None = None
) -> int:
    info = schedule.info
    notes = notes or []
    mode = choose_mode(args.mode, schedule)
    if args.seed is not None and mode == "exact":
        raise InputError("--seed applies to fingerprint mode only (this run is exact)")
    e = limits.check_verify(schedule, mode, not args.non_commutative, args.force)
    adjacency = (info["dims"] or [info["ranks"]]) if args.adjacent else []
    report = run_verify(schedule, args, mode, adjacency, e)
    if args.json:
        doc = {
            "ok": report["ok"],
            "algorithm": info["algorithm"],
            "collective": info["collective"],
            "ranks": info["ranks"],
            "dims": info["dims"],
            "ports": info["ports"],
            "root": info["root"],
            "mode": mode,
            "commutative": not args.non_commutative,
            "steps": report["max_steps"],
            "messages": report["messages"],
            "block_transfers": report["block_transfers"],
            "blocks": info["blocks"],
        }
        if notes:
            doc["msccl_fallback"] = notes
        if not report["ok"]:
            doc["violation"] = {
                key: report[key]
                for key in ("violation", "rank", "step", "block", "expected", "found", "message")
            }
        print(json.dumps(doc))
        return EXIT_OK if report["ok"] else EXIT_WRONG
    print(
        f"{describe(info)}: {report['max_steps']} steps, {report['messages']} messages, "
        f"{report['block_transfers']} block transfers ({info['blocks']} blocks)"
    )
    for note in notes:
        print(f"note: {note}")
    if report["ok"]:
        order = "non-commutative" if args.non_commutative else "commutative"
        print(f"OK {describe(info)} verified ({mode}, {order})")
        return EXIT_OK
    print(f"FAIL {report['message']}")
    return EXIT_WRONG


def read_schedule(name: str) -> tuple[_core.Schedule, list[str]]:
    """A JSON schedule or an MSCCL XML algorithm file, with the MSCCL executor's fallback notes."""
    from topocoll import interop

    return interop.read_schedule_path(name)


SHAPE_OPTIONS = ("collective", "algorithm", "ranks", "dims", "ports", "root")


def cmd_verify(args: argparse.Namespace) -> int:
    if args.all:
        if args.schedule:
            raise InputError("give --all or --schedule, not both")
        reject(
            args,
            ("collective", "ranks", "dims", "ports", "root", "mode", "non_commutative")
            + ("adjacent", "seed", "json"),
            "verify --all (it runs every collective, shape, port count and root; "
            "accepted: --max-ranks, --algorithm, --force, --progress)",
        )
        return verify_all(args)
    reject(args, ("max_ranks",), "verify without --all")
    if args.mode is None:
        args.mode = "auto"
    if args.schedule:
        reject(args, SHAPE_OPTIONS, "verify --schedule (the file gives the schedule)")
        schedule, notes = read_schedule(args.schedule)
        return verify_one(schedule, args, notes)
    return verify_one(build_from_args(args), args)


def verify_all(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from topocoll import verify_all as va

    max_ranks = args.max_ranks or 64
    names = {a["name"] for a in _core.algorithms()}
    chosen = args.algorithm.split(",") if args.algorithm else None
    unknown = [n for n in chosen or [] if n not in names]
    if unknown:
        raise InputError(
            f"unknown algorithm(s) {', '.join(unknown)}; accepted: {', '.join(sorted(names))}"
        )
    seconds = va.estimated_seconds(max_ranks, chosen)
    if seconds > limits.TIME_LIMIT_S and not args.force:
        raise InputError(
            f"verify --all --max-ranks {max_ranks} would take roughly "
            f"{limits.format_duration(seconds)} (the sweep grows with the cube of --max-ranks); "
            "choose a smaller --max-ranks, a few --algorithm, or add --force"
        )
    if show_progress(args):
        tallies = va.run_with_progress(max_ranks, chosen)
    else:
        tallies = va.run(max_ranks, chosen)
    table = Table(title=f"verify --all (P = 2..{max_ranks} and standard tori up to that size)")
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


SCHEDULE_FORMATS = ("text", "json", "msccl-xml", "goal")


def cmd_schedule(args: argparse.Namespace) -> int:
    from topocoll import interop

    if args.pretty and args.format != "json":
        raise InputError("--pretty applies to --format json only")
    if args.format != "msccl-xml":
        reject(
            args,
            ("proto", "name", "nchannels", "instances"),
            f"--format {args.format} (only to msccl-xml)",
        )
    if args.format != "goal":
        reject(args, ("size", "reduce_ns_per_byte"), f"--format {args.format} (only to goal)")
    schedule = build_from_args(args)
    limits.check_export(schedule, args.force)
    if args.format == "json":
        print(schedule.to_json(2 if args.pretty else -1))
    elif args.format == "msccl-xml":
        print(interop.msccl_document(schedule, args), end="")
    elif args.format == "goal":
        from topocoll.simulate import parse_size

        size = parse_size(args.size) if args.size else interop.GOAL_DEFAULT_SIZE
        cost = args.reduce_ns_per_byte or 0.0
        print(interop.goal_document(schedule, size, cost), end="")
    else:
        print(schedule.to_text(), end="")
    return EXIT_OK


def non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value <= 1e9:
        raise argparse.ArgumentTypeError(f"{value} is out of range; accepted: 0..1e9")
    return value


def cmd_sim(args: argparse.Namespace) -> int:
    """`sim`, with --schedule FILE (JSON or MSCCL XML) instead of --algorithm."""
    from topocoll import interop, sim_cli

    if not args.schedule:
        return sim_cli.cmd_sim(args)
    reject(args, ("algorithm", "dims", "ports", "root"), "sim --schedule (the file gives them)")
    schedule, _ = read_schedule(args.schedule)
    info = schedule.info
    if args.collective and args.collective != info["collective"]:
        raise InputError(
            f"--collective {args.collective} differs from the file's {info['collective']}; "
            f"accepted: {info['collective']} (or leave it out)"
        )
    args.collective = info["collective"]
    if args.ranks is not None and args.ranks != info["ranks"]:
        raise InputError(f"--ranks {args.ranks} differs from the file's; accepted: {info['ranks']}")
    args.ranks = info["ranks"]
    args.algorithm = info["algorithm"]
    return interop.simulate_file(args, schedule)


def cmd_traffic(args: argparse.Namespace) -> int:
    from topocoll import traffic

    return traffic.run(args)


def package_version() -> str:
    try:
        return version("topocoll")
    except PackageNotFoundError:
        return "unknown"


def parser() -> argparse.ArgumentParser:
    top = Parser(prog="topocoll", description=__doc__)
    top.add_argument("--version", action="version", version=f"topocoll {package_version()}")
    sub = top.add_subparsers(dest="command", required=True, parser_class=Parser)

    p = sub.add_parser("algorithms", help="list the registered algorithms")
    p.add_argument("--collective", "-c")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_algorithms)

    p = sub.add_parser("verify", help="verify a schedule symbolically")
    add_shape_arguments(p)
    p.add_argument("--schedule", help="verify a schedule file: JSON or MSCCL XML")
    p.add_argument("--all", action="store_true", help="verify every algorithm over a range of P")
    p.add_argument(
        "--max-ranks",
        type=bounded_int("max-ranks", 2, MAX_ALL_RANKS),
        help=f"largest P for --all (default 64, at most {MAX_ALL_RANKS})",
    )
    p.add_argument("--mode", choices=["auto", "exact", "fingerprint"], help="default: auto")
    p.add_argument("--adjacent", action="store_true", help="require torus-neighbour peers")
    p.add_argument("--seed", type=bounded_int("seed", 0, (1 << 64) - 1), help="fingerprint seed")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--force", action="store_true", help="run even beyond the estimated limits")
    p.add_argument("--progress", action="store_true", help="show progress on stderr")
    p.set_defaults(run=cmd_verify)

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
    p.set_defaults(run=cmd_traffic)

    p = sub.add_parser("schedule", help="print a schedule")
    add_shape_arguments(p)
    p.add_argument("--format", choices=SCHEDULE_FORMATS, default="text")
    p.add_argument("--pretty", action="store_true", help="indent the JSON")
    p.add_argument(
        "--proto", choices=["Simple", "LL", "LL128"], help="msccl-xml: protocol (default Simple)"
    )
    p.add_argument("--name", help="msccl-xml: the algorithm's name (default: its registry name)")
    p.add_argument(
        "--nchannels",
        type=bounded_int("nchannels", 1, 32),
        help="msccl-xml: channels of one instance, at least the schedule's ports (default: one "
        "per port); more spread each port's connections over channels",
    )
    p.add_argument(
        "--instances",
        type=bounded_int("instances", 1, 32),
        help="msccl-xml: copies of the algorithm, each on 1/N of every chunk and on channels of "
        "its own (default 1)",
    )
    p.add_argument("--size", help="goal: bytes of the vector (default 1MiB); a block is size/B")
    p.add_argument(
        "--reduce-ns-per-byte",
        type=non_negative_float,
        help="goal: calc cost of reducing one byte in ns (default 0)",
    )
    p.add_argument("--force", action="store_true", help="print even a very large schedule")
    p.set_defaults(run=cmd_schedule)

    from topocoll import sim_cli  # `sim` and `compare`

    sim_cli.add_parsers(sub)
    p = sub.choices["sim"]
    p.add_argument("--schedule", help="simulate a schedule file (JSON or MSCCL XML)")
    p.set_defaults(run=cmd_sim)
    from topocoll import tune  # `tune`

    tune.add_parser(sub)
    from topocoll import innet_cli  # `innet`

    innet_cli.add_parser(sub)
    from topocoll import reproduce  # `reproduce`

    reproduce.register(sub)
    return top


def main(argv: list[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else EXIT_INPUT
    try:
        return args.run(args)
    except ValueError as error:  # InputError, and the core's input errors
        print(f"error: {one_line(error)}", file=sys.stderr)
        return EXIT_INPUT
    except OSError as error:
        print(f"error: {error.strerror or error}: {error.filename or ''}", file=sys.stderr)
        return EXIT_INPUT
    except MemoryError:
        hint = OUT_OF_MEMORY_HINTS.get(args.command, "try a smaller instance")
        print(f"error: out of memory; {hint}", file=sys.stderr)
        return EXIT_INPUT


def one_line(error: Exception | str) -> str:
    """The message on one line: whitespace runs become one space, other control characters
    (which a terminal or `splitlines` could treat as line breaks) are escaped."""
    text = " ".join(str(error).split())
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


if __name__ == "__main__":
    sys.exit(main())

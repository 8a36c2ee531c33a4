"""`topocoll verify`: a schedule (built, or read from a file) checked symbolically, or every
algorithm over a range of shapes (--all).

Exit codes: 0 verified; 1 a well-formed schedule is wrong (the line names the violation); 2 any
input that is invalid, unsupported or too large."""

from __future__ import annotations

import argparse
import json
import sys
import time

from topocoll import _core, limits
from topocoll import verify_all as va
from topocoll.cli.common import (
    AUTO_EXACT_SLOTS,
    EXIT_OK,
    EXIT_WRONG,
    add_shape_arguments,
    bounded_int,
    build_from_args,
    describe,
    reject,
    show_progress,
)
from topocoll.collectives import REDUCING
from topocoll.errors import InputError
from topocoll.formats.schedule_files import read_schedule_document

MAX_ALL_RANKS = 4096


def register(sub) -> None:
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
    p.set_defaults(run=run)


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
            "symmetry": report["symmetry"],
            "symmetry_order": report["symmetry_order"],
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
    if report["symmetry"]:
        print(f"symmetry: {report['symmetry']}")
    if report["ok"]:
        order = "non-commutative" if args.non_commutative else "commutative"
        print(f"OK {describe(info)} verified ({mode}, {order})")
        return EXIT_OK
    print(f"FAIL {report['message']}")
    return EXIT_WRONG


SHAPE_OPTIONS = ("collective", "algorithm", "ranks", "dims", "ports", "root", "ranks_per_node")


def run(args: argparse.Namespace) -> int:
    if args.all:
        if args.schedule:
            raise InputError("give --all or --schedule, not both")
        reject(
            args,
            ("collective", "ranks", "dims", "ports", "root", "mode", "non_commutative")
            + ("adjacent", "seed", "json", "ranks_per_node"),
            "verify --all (it runs every collective, shape, port count and root; "
            "accepted: --max-ranks, --algorithm, --force, --progress)",
        )
        return verify_all(args)
    reject(args, ("max_ranks",), "verify without --all")
    if args.mode is None:
        args.mode = "auto"
    if args.schedule:
        reject(args, SHAPE_OPTIONS, "verify --schedule (the file gives the schedule)")
        file = read_schedule_document(args.schedule)
        collective = file.schedule.info["collective"]
        if file.msccl and args.non_commutative and collective in REDUCING:
            # The executor reduces in arrival order: a verdict on operand order would be made up.
            raise InputError(
                f"--non-commutative does not apply to an MSCCL XML file ({args.schedule}): the "
                "format cannot state the order in which a reduction combines its operands; "
                "accepted: a JSON schedule, or leave --non-commutative out"
            )
        return verify_one(file.schedule, args, file.notes)
    return verify_one(build_from_args(args), args)


def verify_all(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

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

"""`topocoll schedule`: a schedule printed as text, JSON, MSCCL XML or LogGOPSim GOAL."""

from __future__ import annotations

import argparse
import sys

from topocoll import limits
from topocoll.cli.common import (
    EXIT_OK,
    add_shape_arguments,
    bounded_int,
    build_from_args,
    non_negative_float,
    reject,
)
from topocoll.errors import InputError
from topocoll.formats import goal, schedule_files
from topocoll.simulation import parse_size
from topocoll.units import format_bytes

SCHEDULE_FORMATS = ("text", "json", "msccl-xml", "goal")


def register(sub) -> None:
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
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
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
    if args.format == "msccl-xml":
        # The core refuses a non-commutative reduction (the format cannot state operand
        # order), and estimates the export (estimate_msccl_export) to refuse it up front
        # beyond about 10 minutes or half this machine's memory, unless forced.
        print(
            schedule_files.msccl_document(
                schedule,
                args.proto,
                args.name,
                args.nchannels,
                args.instances,
                commutative=not args.non_commutative,
                force=args.force,
            ),
            end="",
        )
        return EXIT_OK
    if args.format == "goal":
        size = parse_size(args.size) if args.size else goal.GOAL_DEFAULT_SIZE
        check_goal(schedule, args.force)
        goal.write_goal(schedule, sys.stdout, size, args.reduce_ns_per_byte or 0.0)
        return EXIT_OK
    limits.check_export(schedule, args.force)
    if args.format == "json":
        print(schedule.to_json(2 if args.pretty else -1))
    else:
        print(schedule.to_text(), end="")
    return EXIT_OK


def check_goal(schedule, force: bool) -> None:
    """Refuses a GOAL export estimated beyond TIME_LIMIT_S or this machine's memory share
    (goal.goal_estimate), unless forced."""
    e = goal.goal_estimate(schedule)
    available = int(limits.physical_memory() * limits.MEMORY_SHARE)
    if force or (e["seconds"] <= limits.TIME_LIMIT_S and e["memory_bytes"] <= available):
        return
    raise InputError(
        f"GOAL export: estimated {e['rank_steps']:,} rank-steps, about "
        f"{format_bytes(e['output_bytes'])} of output, {format_bytes(e['memory_bytes'])} of "
        f"memory and {limits.format_duration(e['seconds'])}; accepted: at most "
        f"{limits.format_duration(limits.TIME_LIMIT_S)} and {format_bytes(available)} of memory; "
        "export a smaller instance or add --force"
    )

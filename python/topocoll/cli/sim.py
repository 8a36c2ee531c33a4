"""`topocoll sim`: one schedule on a network, a registry algorithm (--algorithm) or a schedule file
(--schedule, JSON or MSCCL XML), by the same code path. Definitions of size, goodput and peak:
topocoll/simulation.py; docs/simulator.md."""

from __future__ import annotations

import argparse
import csv
import json

from topocoll import _core
from topocoll.cli.common import (
    add_network_arguments,
    read_schedule,
    reject,
    running,
    schedule_violation,
    setup_from,
    write_output,
)
from topocoll.collectives import ROOTED
from topocoll.errors import InputError
from topocoll.simulation import Network, SimResult, check_outputs, parse_size
from topocoll.units import format_bytes, format_duration

LINK_COLUMNS = ("link", "label", "kind", "from", "to", "bytes", "busy_s", "utilization")


def register(sub) -> None:
    p = sub.add_parser("sim", help="simulate one schedule on a network")
    add_network_arguments(p, defaults=False)
    p.add_argument("--algorithm", "-a", help="a name from `topocoll algorithms`")
    p.add_argument("--size", "-s", help="bytes of the vector, e.g. 1MiB (1B to 1TiB)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--links", help="write per-link bytes and busy time to this CSV file")
    p.add_argument("--trace", help="write a Chrome trace-event JSON file (Perfetto)")
    p.add_argument("--schedule", help="simulate a schedule file (JSON or MSCCL XML)")
    p.set_defaults(run=run)


def file_schedule(args: argparse.Namespace) -> _core.Schedule:
    """The schedule of --schedule FILE; the options it fixes are taken from it."""
    reject(args, ("algorithm", "dims", "ports", "root"), "sim --schedule (the file gives them)")
    schedule, _ = read_schedule(args.schedule)
    info = schedule.info
    if args.collective and args.collective != info["collective"]:
        raise InputError(
            f"--collective {args.collective} differs from the file's {info['collective']}; "
            f"accepted: {info['collective']} (or leave it out)"
        )
    if args.ranks is not None and args.ranks != info["ranks"]:
        raise InputError(f"--ranks {args.ranks} differs from the file's; accepted: {info['ranks']}")
    args.collective, args.ranks, args.algorithm = (
        info["collective"],
        info["ranks"],
        info["algorithm"],
    )
    return schedule


def run(args: argparse.Namespace) -> int:
    schedule = file_schedule(args) if args.schedule else None
    if schedule is not None:
        violation = schedule_violation(schedule, args.force)
        if violation is not None:  # timed, it would mean nothing (it may beat the bound)
            print(f"FAIL {args.schedule}: {violation} (the schedule `verify` rejects is not timed)")
            return 1
    if not args.algorithm:
        names = ", ".join(a["name"] for a in _core.algorithms())
        raise InputError(f"--algorithm is required; accepted: {names}")
    if not args.size:
        raise InputError("--size is required, e.g. 1MiB; accepted: 1B to 1TiB")
    size = parse_size(args.size)
    setup = setup_from(args)
    check_outputs(setup, args.links, args.trace)
    network = Network(setup)
    if schedule is not None:
        network.add_schedule(args.algorithm, schedule)
    cost = network.check_limits(args.algorithm, size, args.force, args.trace)
    try:
        with running(args, cost, f"simulating {args.algorithm} on {args.topology}"):
            result = network.run(args.algorithm, size, links=bool(args.links), trace=args.trace)
    except RuntimeError as error:
        if schedule is None:
            raise
        # A file's schedule may be wrong in ways the registry's never are: a deadlock is a
        # wrong schedule (exit 1, as `verify` says), anything else an input the run refused.
        if "deadlock" in str(error):
            print(f"FAIL {error}")
            return 1
        raise ValueError(str(error)) from None
    if args.links:
        write_output(args.links, "--links", lambda path: write_links(path, result))
    nodes = {"ranks_per_node": setup.ranks_per_node} if network.nodes is not None else {}
    if args.json:
        print(json.dumps(result.to_dict() | nodes))
    else:
        print_result(result)
        if nodes:
            print(f"nodes             {setup.ranks_per_node} ranks per node (docs/nodes.md)")
        if args.links:
            print(f"per-link bytes and busy time written to {args.links}")
        if args.trace:
            print(f"trace written to {args.trace} (open it in https://ui.perfetto.dev)")
    return 0


def bound_text(collective: str) -> str:
    if collective == "allreduce":
        return "2(P-1)/P x size"
    if collective in ("bcast", "reduce"):
        return "size"
    return "(P-1)/P x size"


def print_result(r: SimResult) -> None:
    shape = f"dims {r.dims}" if "x" in r.dims else "1D"
    root = f", root {r.root}" if r.collective in ROOTED else ""
    print(
        f"{r.collective} {r.algorithm} on {r.topology}: {r.ranks} ranks ({shape}), {r.ports} "
        f"ports{root}, {format_bytes(r.size_bytes)}, {r.model} model, {r.routing} routing"
        + (f", global links {100 * r.global_load:g}% taken by other jobs" if r.global_load else "")
    )
    print(f"time              {format_duration(r.time_s)}")
    print(
        f"goodput           {r.goodput_gbps:.2f} Gb/s, {r.peak_percent:.1f}% of the peak "
        f"{r.peak_goodput_gbps:.2f} Gb/s (bound {bound_text(r.collective)} at "
        f"{r.host_bandwidth_gbps:.0f} Gb/s per host)"
    )
    print(
        f"link utilization  max {100 * r.max_link_utilization:.1f}%, "
        f"mean {100 * r.mean_link_utilization:.1f}% (of links that carried data)"
    )
    print(f"messages          {r.messages} ({r.transfers} transfers)")


def write_links(path: str, result: SimResult) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=LINK_COLUMNS)
        writer.writeheader()
        for row in result.links or []:
            writer.writerow({k: row[k] for k in LINK_COLUMNS})

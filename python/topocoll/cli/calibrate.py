"""`topocoll calibrate`: measures this machine with the MPI runtime and writes a machine file
(docs/calibration.md). Run under mpirun/mpiexec with 2 or more ranks; rank 0 writes."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from topocoll import calibration
from topocoll.cli.common import EXIT_INPUT, EXIT_OK
from topocoll.errors import one_line

NAME = re.compile(r"[a-z0-9-]{1,64}")


def register(sub) -> None:
    p = sub.add_parser(
        "calibrate",
        help="measure this machine with the MPI runtime (under mpirun, 2+ ranks); write a "
        "machine file",
    )
    p.add_argument("--out", required=True, help="the machine file to write (JSON)")
    p.add_argument("--name", help="the machine's name (a-z, 0-9, -; default calibrated-HOST)")
    p.set_defaults(run=run)


def unwritable(path: str) -> str | None:
    """Why `path` cannot be written, when that shows before writing (a missing or read-only
    folder, a folder in its place); None otherwise (a full device shows only when writing)."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        return "is a folder"
    if not folder.is_dir():
        return f"folder {folder} does not exist"
    if not os.access(target if target.exists() else folder, os.W_OK):
        return "is not writable"
    return None


def write_machine(path: str, machine: dict[str, Any]) -> None:
    # Written in place, not renamed over: --out may name a device or a pipe.
    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps(machine, indent=2) + "\n")


def companion(path: str) -> str:
    """Where the on-node machine goes beside `path`: m.json -> m-intra-node.json."""
    target = Path(path)
    return str(target.with_name(target.stem + "-intra-node" + (target.suffix or ".json")))


def node_summary(machine: dict[str, Any]) -> str:
    nodes = machine.get("nodes")
    if not nodes:
        return ""
    return (
        f", nodes of {nodes['ranks_per_node']['value']} ranks (memory "
        f"{nodes['memory_bandwidth']['value']}, per-rank copy {nodes['fabric_bandwidth']['value']})"
    )


def fail(line: str, rank: int = 0) -> int:
    if rank == 0:
        print(f"error: calibrate: {one_line(line)}", file=sys.stderr)
    return EXIT_INPUT


def run(args: argparse.Namespace) -> int:
    if args.name is not None and not NAME.fullmatch(args.name):
        return fail(f"--name '{args.name}' is not a name; accepted: 1 to 64 of a-z, 0-9 and -")
    try:
        comm = calibration.world()
    except calibration.CalibrationError as error:
        return fail(str(error))
    rank = comm.Get_rank()
    problem = comm.bcast(unwritable(args.out) if rank == 0 else None, root=0)
    if problem:
        return fail(f"--out {args.out}: {problem}; accepted: a file in a writable folder", rank)
    command = " ".join(["topocoll", *sys.argv[1:]]) + f" on {comm.Get_size()} ranks"
    try:
        machine, intra = calibration.calibrate_all(comm, name=args.name, command=command)
    except calibration.CalibrationError as error:
        return fail(str(error), rank)
    written = None
    if rank == 0:
        try:
            write_machine(args.out, machine)
            if intra is not None:
                write_machine(companion(args.out), intra)
        except OSError as error:
            written = f"--out {args.out}: cannot write ({error.strerror or error})"
    written = comm.bcast(written, root=0)
    if written:
        return fail(written, rank)
    if rank == 0:
        net, host = machine["network"], machine["host"]
        extra = f" and {companion(args.out)} (a pair on one node)" if intra else ""
        print(
            f"wrote {args.out}{extra}: machine {machine['name']}, topology "
            f"{machine['topology']['value']}, link latency {net['link_latency']['value']}, "
            f"bandwidth {net.get('bandwidth', {}).get('value', '-')}, o "
            f"{host['send_overhead']['value']}/{host['recv_overhead']['value']}, g "
            f"{host['gap']['value']}, eager threshold {host['eager_threshold']['value']}, "
            f"CPU per step {host['step_cpu']['value']}, per call "
            f"{host['call_overhead']['value']}{node_summary(machine)}"
        )
    return EXIT_OK

"""`topocoll tune`: the rules file that `auto` reads (TOPOCOLL_RULES, docs/mpi.md), or the MPI
libraries' tuning files, from the simulator (topocoll.tuning)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from topocoll.cli.common import add_network_arguments, setup_from, writable, write_output
from topocoll.cli.compare import run_compare
from topocoll.errors import InputError
from topocoll.formats import mpi_tuning
from topocoll.tuning import DEFAULT_SIZES, NO_UPPER_END, rules_from
from topocoll.units import format_bytes


def register(sub) -> None:
    p = sub.add_parser("tune", help="write the rules file of `auto` from the simulator")
    add_network_arguments(p, defaults=False)
    p.set_defaults(collective="allreduce")
    p.add_argument("--algorithms", default="all", help="A,B,... or all (default)")
    p.add_argument("--sizes", default=DEFAULT_SIZES, help=f"LOW:HIGH or A,B,C ({DEFAULT_SIZES})")
    p.add_argument("--jobs", "-j", type=int, default=1, help="local processes")
    p.add_argument("--output", "-o", help="rules file to write (default: standard output)")
    p.add_argument(
        "--format",
        choices=["topocoll", "ompi-rules", "mpich-json"],
        default="topocoll",
        help="topocoll (TOPOCOLL_RULES, default), ompi-rules (Open MPI coll_tuned dynamic "
        "rules) or mpich-json (MPICH collective selection); the last two rank only the "
        "algorithms that library implements (docs/interchange.md)",
    )
    p.set_defaults(run=run)


def composition_note(args: argparse.Namespace, text: str) -> str:
    """With nodes, says that the library's file ranks its own flat algorithms only: a
    composition (hier:/leader:) is no algorithm of coll_tuned or of MPICH's selection tree, and
    runs through the topocoll drop-in's rules (docs/nodes.md, "Compare and tune")."""
    k = args.ranks_per_node
    note = (
        f"the compositions hier:INNER and leader:INNER (nodes of {k} ranks) are not algorithms "
        f"of this library's file: it ranks the library's own flat algorithms only; for them run "
        f"`topocoll tune --format topocoll --ranks-per-node {k}` and the topocoll drop-in "
        "(TOPOCOLL_RULES)"
    )
    print(f"note: {note}", file=sys.stderr)
    if args.format == "ompi-rules":  # after the rules, which coll_tuned reads as numbers
        return text + "# " + note.replace(f"nodes of {k} ranks", "nodes of K ranks") + "\n"
    return text  # JSON has no comments; the note is on stderr and in docs/nodes.md


def run(args: argparse.Namespace) -> int:
    if not args.ranks:
        raise InputError("--ranks is required: the communicator size the rules are for")
    if args.output:
        writable(args.output, "--output", setup_from(args))
    if args.format != "topocoll":  # rank only what that MPI library implements
        args.algorithms = mpi_tuning.library_algorithms(
            args.format, args.collective, args.algorithms
        )
    comparison = run_compare(args)
    if comparison is None:  # an MPI rank other than 0
        return 0
    document = rules_from(comparison)
    text = json.dumps(document, indent=2) + "\n"
    if args.format != "topocoll":
        write = {"ompi-rules": mpi_tuning.ompi_rules, "mpich-json": mpi_tuning.mpich_json}
        text = write[args.format](document, args.collective, comparison.ranks)
        if (args.ranks_per_node or 1) > 1:
            text = composition_note(args, text)
    for rule in document["rules"]:
        high = rule["max_bytes"]
        upper = "and up" if high == NO_UPPER_END else f"below {format_bytes(high + 1)}"
        print(
            f"{rule['collective']} P={rule['min_ranks']}, from {format_bytes(rule['min_bytes'])} "
            f"{upper}: {rule['algorithm']}",
            file=sys.stderr if not args.output else None,
        )
    if comparison.skipped:
        print(f"not simulated (they do not fit): {', '.join(comparison.skipped)}", file=sys.stderr)
    if args.output:
        write_output(args.output, "--output", lambda path: Path(path).write_text(text))
        use = {
            "topocoll": f"TOPOCOLL_RULES={args.output}",
            "ompi-rules": "mpiexec --mca coll_tuned_use_dynamic_rules 1 --mca "
            f"coll_tuned_dynamic_rules_filename {args.output}",
            "mpich-json": f"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE={args.output}",
        }[args.format]
        print(f"rules written to {args.output}; use them with {use}")
    else:
        print(text, end="")
    return 0

"""`topocoll algorithms`: the registered algorithms, their collectives and requirements, and the
compositions hier:INNER and leader:INNER (docs/hierarchical.md) that exist over them."""

from __future__ import annotations

import argparse
import json

from topocoll import _core
from topocoll.cli.common import EXIT_OK, add_ranks_per_node, bounded_int
from topocoll.errors import InputError
from topocoll.shapes import MAX_RANKS


def register(sub) -> None:
    p = sub.add_parser("algorithms", help="list the registered algorithms")
    p.add_argument("--collective", "-c")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--nodes",
        type=bounded_int("nodes", 1, MAX_RANKS, f"1..{MAX_RANKS}"),
        help="with --collective: say which compositions run on this many nodes",
    )
    add_ranks_per_node(p)
    p.add_argument(
        "--compositions",
        action="store_true",
        help="--json: print the composition forms and every hier:/leader: composition",
    )
    p.set_defaults(run=run)


def compositions(args: argparse.Namespace) -> dict:
    """The composition forms, and every FORM:INNER (of --collective when given; with --nodes,
    whether the registry accepts it on that many nodes of --ranks-per-node ranks, and why not)."""
    if args.nodes and not args.collective:
        raise InputError("--nodes needs --collective; accepted: --collective C --nodes N")
    k = args.ranks_per_node or 2
    listed = _core.compositions(args.collective or "", args.nodes or 0, k)
    doc = {"forms": _core.composition_forms(), "compositions": listed}
    if args.nodes:
        doc |= {"nodes": args.nodes, "ranks_per_node": k}
    return doc


def run(args: argparse.Namespace) -> int:
    algos = _core.algorithms()
    if args.collective:
        if args.collective not in _core.collectives():
            raise InputError(
                f"unknown collective '{args.collective}'; "
                f"accepted: {', '.join(_core.collectives())}"
            )
        algos = [a for a in algos if args.collective in a["collectives"]]
    composed = compositions(args)
    if args.json:
        # The flat list stays what --json prints (scripts index it by name and read each
        # entry's requirements); --compositions prints the forms and the compositions instead.
        print(json.dumps(composed if args.compositions else algos, indent=2))
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
    console = Console(width=160)
    console.print(table)
    print_compositions(console, composed)
    return EXIT_OK


def print_compositions(console, composed: dict) -> None:
    from rich.table import Table

    forms = Table(title="composition forms: FORM:INNER runs a registry algorithm INNER on nodes")
    for column in ("form", "collectives", "summary"):
        forms.add_column(column)
    for f in composed["forms"]:
        forms.add_row(f"{f['name']}:INNER", ", ".join(f["collectives"]), f["summary"])
    console.print(forms)
    listed = composed["compositions"]
    if "nodes" in composed:
        ok = [c["name"] for c in listed if c["accepted"]]
        console.print(
            f"on {composed['nodes']} nodes of {composed['ranks_per_node']} ranks: "
            f"{len(ok)} compositions run: {', '.join(ok) or 'none'}"
        )
        for c in listed:
            if not c["accepted"]:
                console.print(f"  not {c['name']}: {c['rejection']}", highlight=False)
    else:
        console.print(f"compositions: {', '.join(c['name'] for c in listed)}", highlight=False)

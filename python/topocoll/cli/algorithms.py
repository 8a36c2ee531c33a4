"""`topocoll algorithms`: the registered algorithms, their collectives and requirements."""

from __future__ import annotations

import argparse
import json

from topocoll import _core
from topocoll.cli.common import EXIT_OK
from topocoll.errors import InputError


def register(sub) -> None:
    p = sub.add_parser("algorithms", help="list the registered algorithms")
    p.add_argument("--collective", "-c")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
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

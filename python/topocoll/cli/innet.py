"""`topocoll innet`: in-network allreduce (Canary, static reduction trees) against the host-based
ring, simulated packet by packet on a 2-level fat tree (src/sim/innet; docs/innet.md)."""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys

from topocoll import _core, innet, parameters
from topocoll.cli.common import write_output
from topocoll.errors import InputError, require
from topocoll.innet import DEFAULT_ALGORITHMS, options_from
from topocoll.plots import PLOT_FORMATS, plot_links
from topocoll.units import format_bytes, format_duration, parse_duration

LINK_COLUMNS = ("algorithm", "link", "label", "bytes", "utilization")


def print_text(args, topology, results: dict[str, dict]) -> None:
    options = options_from(args)
    hosts = args.hosts if args.hosts is not None else topology.hosts // 2
    print(
        f"allreduce of {format_bytes(options['size_bytes'])} on {hosts} of {topology.hosts} hosts "
        f"of {topology.spec} ({args.tenants} tenant(s)), congestion {args.congestion}, "
        f"seed {args.seed}"
    )
    header = f"{'algorithm':<10} {'goodput Gb/s':>12} {'time':>12} {'exact':>6} " + " ".join(
        f"{c:>10}" for c in ("aggregated", "to_leader", "collisions", "retx", "fallbacks")
    )
    print(header)
    for name, r in results.items():
        time = format_duration(r["time_s"]) if r["completed"] else "incomplete"
        print(
            f"{name:<10} {r['goodput_gbps']:>12.2f} {time:>12} {'yes' if r['exact'] else 'NO':>6} "
            f"{r['aggregated']:>10} {r['to_leader']:>10} {r['collisions']:>10} "
            f"{r['retransmissions']:>10} {r['fallbacks']:>10}"
        )
    print(
        "mean link utilization: "
        + ", ".join(
            f"{name} {100 * r['mean_link_utilization']:.1f}%" for name, r in results.items()
        )
    )


def write_links(path: str, topology, results: dict[str, dict]) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=LINK_COLUMNS)
        writer.writeheader()
        for name, r in results.items():
            for row in r["links"]:
                writer.writerow(
                    {
                        "algorithm": name,
                        "link": row["link"],
                        "label": topology.link_label(row["link"]),
                        "bytes": row["bytes"],
                        "utilization": f"{row['utilization']:.6f}",
                    }
                )


# Options that act on one part of a run only; given where that part does not run, they are
# refused (the README's promise: an option that does not apply is an error, not a no-op).
CONGESTION_OPTIONS = ("background_load", "background_message", "background_routing")
# Canary's switch tables, timeout, fallback and host retransmission (docs/innet.md); the
# window also bounds static trees. None of them touches the ring.
NOT_FOR_RING = ("timeout", "rto", "fixed_rto", "max_attempts", "table_entries", "table_index")
NOT_FOR_RING += ("partition_table", "window")


class _DefaultStr(str):
    """A default value the user did not give (told from a given one by its type)."""


class _DefaultFloat(float):
    """A default value the user did not give."""


class _DefaultInt(int):
    """A default value the user did not give."""


_DEFAULT_TYPES = {str: _DefaultStr, float: _DefaultFloat, int: _DefaultInt}


def mark_defaults(parser: argparse.ArgumentParser) -> None:
    """Wraps the defaults of the options `check_applicable` looks at, so that it can tell a
    value the user gave from the default (argparse leaves a default that is not a string as it
    is, and a string one through an identity type)."""
    for action in parser._actions:
        if action.dest in CONGESTION_OPTIONS + NOT_FOR_RING and type(action.default) in (
            _DEFAULT_TYPES
        ):
            action.default = _DEFAULT_TYPES[type(action.default)](action.default)


def given(args: argparse.Namespace, names: tuple[str, ...]) -> list[str]:
    """The options among `names` the user gave."""
    out = []
    for name in names:
        value = getattr(args, name, None)
        if value not in (None, False) and type(value) not in _DEFAULT_TYPES.values():
            out.append("--" + name.replace("_", "-"))
    return out


def spine_count(topology) -> int:
    """The spines of a 2-level fat tree, from its link labels (`leaf0->spine1`)."""
    names = set()
    for link in range(topology.link_count):
        names.update(re.findall(r"spine\d+", topology.link_label(link)))
    return len(names)


def check_applicable(args: argparse.Namespace, topology) -> None:
    """InputError for an option that cannot apply to the run asked for, naming why."""
    if args.congestion == "none" and given(args, CONGESTION_OPTIONS):
        raise InputError(
            f"{', '.join(given(args, CONGESTION_OPTIONS))} does not apply to --congestion none "
            "(no congestion traffic runs); accepted: --congestion permutation or uniform"
        )
    algorithms = {a.strip() for a in args.algorithms.split(",") if a.strip()}
    if algorithms == {"ring"} and given(args, NOT_FOR_RING):
        raise InputError(
            f"{', '.join(given(args, NOT_FOR_RING))} does not apply to --algorithms ring (it "
            "sets Canary's or the static trees' switches and retransmissions; the ring uses "
            "none); accepted: with canary or static-N among --algorithms"
        )
    if args.max_time is not None and parse_duration(args.max_time) <= 0:
        raise InputError(
            f"--max-time {args.max_time}: no allreduce completes in a horizon of 0; accepted: "
            "a positive time, e.g. 5ms (or leave it out for the default)"
        )
    spines = spine_count(topology)
    for name in algorithms:
        trees = name.removeprefix("static-")
        if name.startswith("static-") and trees.isdigit() and spines and int(trees) > spines:
            raise InputError(
                f"--algorithms {name}: {trees} static trees need {trees} distinct spines, "
                f"{topology.spec} has {spines}; accepted: static-1..static-{spines}"
            )


def run(args: argparse.Namespace) -> int:
    # Checked before the run, in the one place the other simulator commands use.
    parameters.outputs(
        {"--links": args.links, "--plot": args.plot}, {}, suffixes={"--plot": PLOT_FORMATS}
    )
    if args.plot:  # before the runs
        require("matplotlib", "innet --plot")
    params, default_topology = innet.innet_params(args.params, getattr(args, "machine", None))
    check_applicable(args, _core.make_topology(args.topology or default_topology, params))
    topology, _, results = innet.run(args)
    if args.links:
        write_output(args.links, "--links", lambda path: write_links(path, topology, results))
    if args.plot:
        write_output(args.plot, "--plot", lambda path: plot_links(path, results))
    if args.json:
        out = {name: {k: v for k, v in r.items() if k != "links"} for name, r in results.items()}
        print(json.dumps(out, sort_keys=True))
    else:
        print_text(args, topology, results)
        if args.links:
            print(f"per-link utilization written to {args.links}")
        if args.plot:
            print(f"link-utilization distribution written to {args.plot}")
    return outcome(results)


def outcome(results: dict[str, dict]) -> int:
    """0 when every allreduce completed with exact sums; otherwise 1, with one line on stderr per
    run that did not (static trees and the ring have no loss recovery: a drop or a failed switch
    on their path leaves them incomplete)."""
    code = 0
    for name, r in results.items():
        if not r["completed"]:
            print(
                f"incomplete: {name} did not finish by the horizon ({r['drops']} packets lost, "
                f"{r['retransmissions']} retransmissions)",
                file=sys.stderr,
            )
            code = 1
        elif not r["exact"]:
            print(f"wrong: {name} finished with {r['mismatches']} wrong blocks", file=sys.stderr)
            code = 1
    return code


def register(sub) -> None:
    p = sub.add_parser("innet", help="in-network allreduce (Canary) simulated packet by packet")
    p.add_argument(
        "--topology",
        "-t",
        help="a 2-level fat tree (default: the --machine's, else fattree:canary)",
    )
    p.add_argument(
        "--params", help="link-only parameter preset (default canary; exclusive with --machine)"
    )
    p.add_argument(
        "--machine",
        help="a machine (shipped name or file) giving the fat tree's bandwidth and latencies; "
        "host costs do not apply here and are refused",
    )
    p.add_argument("--hosts", type=int, help="hosts in the allreduce(s) (default: half)")
    p.add_argument("--size", "-s", default="4MiB", help="bytes per allreduce (default 4MiB)")
    p.add_argument("--algorithms", "-a", default=DEFAULT_ALGORITHMS, help="canary, static-N, ring")
    p.add_argument(
        "--congestion",
        default="permutation",
        help="permutation (default: message k of every congestion host follows the k-th random "
        "cycle, so each sends to one and receives from one), uniform (each message to a random "
        "peer, incast) or none",
    )
    p.add_argument(
        "--background-routing",
        default="default",
        help="up port of congestion packets: default (destination's default up port, the "
        "default), ecmp (hash of source and destination) or adaptive (the allreduce's rule)",
    )
    p.add_argument(
        "--background-load",
        type=float,
        default=0.2,
        help="offered load of each congestion host, a fraction of line rate (default 0.2: "
        "fitted to canary-fgcs24 Fig. 7b's mean link utilization, docs/innet.md)",
    )
    p.add_argument(
        "--background-message", default="64KiB", help="congestion message size (default 64KiB)"
    )
    p.add_argument("--seed", type=int, default=1, help="allocation, roots, traffic (default 1)")
    p.add_argument("--timeout", default="1us", help="Canary switch timeout (default 1us)")
    p.add_argument(
        "--rto",
        default="auto",
        help="minimum host retransmission timeout (default auto: the network's worst-case block "
        "round trip); above it the timer follows measured round trips and doubles per expiry "
        "(RFC 6298)",
    )
    p.add_argument("--fixed-rto", action="store_true", help="a fixed --rto, no estimate/backoff")
    p.add_argument(
        "--window",
        type=int,
        default=256,
        help="blocks in flight per host at most (Canary, static trees; 0: unbounded; default 256)",
    )
    p.add_argument("--table-entries", type=int, default=32768, help="descriptors per switch")
    p.add_argument(
        "--table-index",
        default="static",
        help="block id to table entry: static (default: a share per tenant, sequence numbers in "
        "order), switch-hash (a hash salted per switch) or shared-hash (one hash everywhere)",
    )
    p.add_argument(
        "--partition-table", action="store_true", help="hash indexes: a static share per tenant"
    )
    p.add_argument("--drop", type=float, default=0.0, help="per-link drop probability [0,1)")
    p.add_argument(
        "--noise", type=float, default=0.0, help="probability a host delays a packet 1us"
    )
    p.add_argument("--fail-switch", action="append", help="SWITCH@TIME, e.g. spine3@20us")
    p.add_argument(
        "--fail-link",
        action="append",
        help="LINK@TIME, e.g. leaf0->spine1@20us (both directions of the cable fail)",
    )
    p.add_argument("--tenants", type=int, default=1, help="concurrent allreduces (default 1)")
    p.add_argument("--lossy", action="store_true", help="tail drop instead of credits")
    p.add_argument(
        "--flow-control",
        default="input",
        help="lossless flow control: input (default: credits for one shared input buffer per "
        "port) or output (room in the next switch's output queue)",
    )
    p.add_argument("--routing", default="adaptive", help="adaptive (default) or ecmp")
    p.add_argument("--buffer", default="64KiB", help="bytes per port buffer (default 64KiB)")
    p.add_argument("--elements", type=int, default=256, help="int32 elements per packet")
    p.add_argument("--max-attempts", type=int, default=3, help="Canary tries before fallback")
    p.add_argument(
        "--max-time",
        help="simulated horizon (default 20x size/bandwidth + 500us; Canary: + 3 host timeouts; "
        "ring: + 50us per step)",
    )
    p.add_argument("--jobs", "-j", type=int, default=1, help="algorithms run in parallel")
    p.add_argument(
        "--force", action="store_true", help="run even beyond the memory and time limits"
    )
    p.add_argument("--json", action="store_true", help="one JSON object per algorithm")
    p.add_argument("--links", help="write per-link utilization to this CSV file")
    p.add_argument("--plot", help="write the link-utilization distribution to this PNG file")
    mark_defaults(p)
    p.set_defaults(run=run)

"""`topocoll innet`: in-network allreduce (Canary, static reduction trees) against the host-based
ring, simulated packet by packet on a 2-level fat tree (src/sim/innet; docs/innet.md)."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from concurrent.futures import ThreadPoolExecutor

from topocoll import _core, parameters
from topocoll.shapes import InputError
from topocoll.sim_cli import PLOT_FORMATS, write_output
from topocoll.simulate import parse_size
from topocoll.units import format_bytes, format_duration, parse_duration

DEFAULT_ALGORITHMS = "canary,static-1,static-4,ring"
COUNTERS = ("aggregated", "to_leader", "collisions", "stragglers", "retransmissions")
COUNTERS += ("restarts", "fallbacks", "drops")
LINK_COLUMNS = ("algorithm", "link", "label", "bytes", "utilization")
MAX_JOBS = 64
BACKGROUND_ROUTINGS = ("default", "ecmp", "adaptive")
TABLE_INDEXES = ("static", "switch-hash", "shared-hash")


def parse_failure(text: str, option: str = "--fail-switch") -> tuple[str, float]:
    """`spine3@20us` -> ("spine3", 2e-5); `leaf0->spine1@5us` -> ("leaf0->spine1", 5e-6)."""
    name, at, when = text.rpartition("@")
    if not at or not name:
        accepted = (
            "SWITCH@TIME, e.g. spine3@20us (SWITCH: leafN, spineN or a switch index)"
            if option == "--fail-switch"
            else "LINK@TIME, e.g. leaf0->spine1@20us (LINK: a switch-to-switch link label or "
            "index; both directions fail)"
        )
        raise InputError(f"{option} {text!r} not understood; accepted: {accepted}")
    return name, parse_duration(when)


def options_from(args: argparse.Namespace) -> dict:
    if args.congestion not in ("uniform", "permutation", "none"):
        raise InputError(
            f"--congestion {args.congestion!r} unknown; accepted: uniform, permutation, none"
        )
    if args.flow_control not in ("input", "output"):
        raise InputError(f"--flow-control {args.flow_control!r} unknown; accepted: input, output")
    if args.routing not in ("adaptive", "ecmp"):
        raise InputError(f"--routing {args.routing!r} unknown; accepted: adaptive, ecmp")
    if args.background_routing not in BACKGROUND_ROUTINGS:
        raise InputError(
            f"--background-routing {args.background_routing!r} unknown; accepted: "
            + ", ".join(BACKGROUND_ROUTINGS)
        )
    if args.table_index not in TABLE_INDEXES:
        raise InputError(
            f"--table-index {args.table_index!r} unknown; accepted: " + ", ".join(TABLE_INDEXES)
        )
    if not 0 < args.background_load <= 1:
        raise InputError(
            f"--background-load {args.background_load} out of range; accepted: (0, 1], a "
            "fraction of line rate"
        )
    if not 0 <= args.seed < 2**64:
        raise InputError(f"--seed {args.seed} out of range; accepted: 0..2^64-1")
    for option in ("hosts", "tenants", "table_entries", "elements", "max_attempts", "window"):
        value = getattr(args, option)
        if value is not None and not -(2**31) <= value < 2**31:
            # The engine checks the exact ranges; this keeps values inside its 32-bit fields.
            raise InputError(
                f"--{option.replace('_', '-')} {value} out of range; accepted: 1..2^31-1"
            )
    failures = [parse_failure(f) for f in args.fail_switch or []]
    link_failures = [parse_failure(f, "--fail-link") for f in args.fail_link or []]
    options = {
        "size_bytes": parse_size(args.size),
        "tenants": args.tenants,
        "congestion": args.congestion != "none",
        "permutation": args.congestion == "permutation",
        "input_credits": args.flow_control == "input",
        "adaptive_rto": not args.fixed_rto,
        "timeout_s": parse_duration(args.timeout),
        "rto_s": 0.0 if args.rto == "auto" else parse_duration(args.rto),
        "table_entries": args.table_entries,
        "table_index": args.table_index,
        "background_routing": args.background_routing,
        "background_load": args.background_load,
        "background_message_bytes": parse_size(args.background_message, "--background-message"),
        "window": args.window,
        "force": args.force,
        "partition_table": args.partition_table,
        "drop": args.drop,
        "noise": args.noise,
        "seed": args.seed,
        "lossless": not args.lossy,
        "ecmp": args.routing == "ecmp",
        "buffer_bytes": parse_size(args.buffer, "--buffer"),
        "elements_per_packet": args.elements,
        "max_attempts": args.max_attempts,
        "fail_switches": [name for name, _ in failures],
        "fail_times": [when for _, when in failures],
        "fail_links": [name for name, _ in link_failures],
        "fail_link_times": [when for _, when in link_failures],
        "links": bool(args.links) or bool(getattr(args, "plot", None)),
    }
    if args.hosts is not None:
        options["hosts"] = args.hosts
    if args.max_time:
        options["max_time_s"] = parse_duration(args.max_time)
    return options


def run(args: argparse.Namespace) -> tuple[object, list[str], dict[str, dict]]:
    if not 1 <= args.jobs <= MAX_JOBS:
        raise InputError(f"--jobs {args.jobs} out of range; accepted: 1..{MAX_JOBS}")
    params = _core.network_preset(args.params)
    topology = _core.make_topology(args.topology, params)
    options = options_from(args)
    algorithms = [a.strip() for a in args.algorithms.split(",") if a.strip()]
    if not algorithms:
        raise InputError(f"--algorithms is empty; accepted: e.g. {DEFAULT_ALGORITHMS}")
    if len(set(algorithms)) != len(algorithms):
        raise InputError("--algorithms names an algorithm twice")
    # validate every name and option before the (long) runs start
    for name in algorithms:
        _core.innet_check(topology, name, options)
    if sys.stderr.isatty():
        print(f"simulating {len(algorithms)} allreduces packet by packet...", file=sys.stderr)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        runs = list(pool.map(lambda name: _core.innet_run(topology, name, options), algorithms))
    return topology, algorithms, dict(zip(algorithms, runs, strict=True))


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


def utilization_shares(links: list[dict]) -> list[float]:
    """Percent of the links in each 10% utilization bin (0-10%, ..., 90-100%)."""
    counts = [0] * 10
    for row in links:
        counts[min(int(min(row["utilization"], 1.0) * 10), 9)] += 1
    return [100 * c / max(1, len(links)) for c in counts]


def plot_links(path: str, results: dict[str, dict]) -> None:
    """The distribution of link utilization per algorithm (the shape of canary-fgcs24 Fig. 7b):
    the share of links in each 10% utilization bin."""
    plot_shares(path, {name: utilization_shares(r["links"]) for name, r in results.items()})


def plot_shares(path: str, shares: dict[str, list[float]], title: str = "") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for name, values in shares.items():
        ax.plot([10 * b + 5 for b in range(10)], values, marker="o", label=name)
    if title:
        ax.set_title(title, fontsize=9)
    ax.set_xlabel("link utilization (%)")
    ax.set_ylabel("links (%)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)


def cmd_innet(args: argparse.Namespace) -> int:
    # Checked before the run, in the one place the other simulator commands use.
    parameters.outputs(
        {"--links": args.links, "--plot": args.plot}, {}, suffixes={"--plot": PLOT_FORMATS}
    )
    topology, _, results = run(args)
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


def add_parser(sub) -> None:
    p = sub.add_parser("innet", help="in-network allreduce (Canary) simulated packet by packet")
    p.add_argument("--topology", "-t", default="fattree:canary", help="a 2-level fat tree")
    p.add_argument("--params", default="canary", help="parameter preset (default canary)")
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
    p.set_defaults(run=cmd_innet)

"""In-network allreduce (Canary, static reduction trees) against the host-based ring, simulated
packet by packet on a 2-level fat tree (src/sim/innet; docs/innet.md): the options of a run and
the runs themselves."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor

from topocoll import _core
from topocoll.errors import InputError
from topocoll.machine import load_machine
from topocoll.parallel import MAX_THREADS
from topocoll.simulation import parse_size
from topocoll.units import parse_duration

DEFAULT_ALGORITHMS = "canary,static-1,static-4,ring"
COUNTERS = ("aggregated", "to_leader", "collisions", "stragglers", "retransmissions")
COUNTERS += ("restarts", "fallbacks", "drops")
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


def options_from(args) -> dict:
    """The engine's options from the command line's (any object with its attributes)."""
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


# What a machine file may give the in-network simulator: the fat tree's links. Host costs,
# reduction rates and per-step overheads are the host model of `sim`, which innet does not run.
INNET_MACHINE_KEYS = (
    "topology",
    "network.bandwidth",
    "network.link_latency",
    "network.hop_latency",
)


def innet_params(preset: str | None, machine: str | None) -> tuple[object, str]:
    """(link parameters, default topology) of `innet`: the --machine's links (its other keys
    are refused by name) or the link-only --params preset (default canary)."""
    if machine is None:
        return _core.network_preset(preset or "canary"), "fattree:canary"
    if preset is not None:
        raise InputError("--params and --machine both give the parameters; accepted: one of them")
    loaded = load_machine(machine)
    extra = [
        key
        for key in loaded.sources
        if key not in INNET_MACHINE_KEYS
        and not (key == "network.nic_ports" and loaded.params.nic_ports == 1)
    ]
    if extra:
        raise InputError(
            f"machine '{loaded.name}' gives {', '.join(extra)}, which the in-network simulator "
            f"does not model; accepted: a machine with only {', '.join(INNET_MACHINE_KEYS)} "
            "(and network.nic_ports 1)"
        )
    return loaded.params, loaded.topology or "fattree:canary"


def run(args) -> tuple[object, list[str], dict[str, dict]]:
    """(topology, algorithms, result per algorithm) of the runs `args` asks for."""
    if not 1 <= args.jobs <= MAX_THREADS:
        raise InputError(f"--jobs {args.jobs} out of range; accepted: 1..{MAX_THREADS}")
    params, default_topology = innet_params(args.params, getattr(args, "machine", None))
    topology = _core.make_topology(args.topology or default_topology, params)
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


def utilization_shares(links: list[dict]) -> list[float]:
    """Percent of the links in each 10% utilization bin (0-10%, ..., 90-100%)."""
    counts = [0] * 10
    for row in links:
        counts[min(int(min(row["utilization"], 1.0) * 10), 9)] += 1
    return [100 * c / max(1, len(links)) for c in counts]
